package spanmap

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// maxEventsPerKind bounds the unknown and invalid lines recorded one by one
// on a session span; beyond it they are only counted.
const maxEventsPerKind = 32

// session is the state of one open session span.
type session struct {
	rec  *Recorder
	span trace.Span
	ctx  context.Context

	start   time.Time
	last    time.Time // the latest time anything in the session happened
	prev    time.Time // the time of the previous event: where a model call starts
	sawInit bool
	model   string
	convID  string

	current *modelCall            // the model call new output belongs to
	calls   map[string]*modelCall // model calls by model_call_id; ended ones as forget leaves them
	ended   []string              // ids of ended model calls, oldest first
	open    []*modelCall          // model calls not yet ended
	tools   map[string]*toolCall  // tool calls started and not completed, by call_id

	result          *parse.Result
	prompt          boundedText
	invalid, unknow int
}

func (r *Recorder) newSession(t time.Time) *session {
	s := &session{
		rec:   r,
		start: t,
		last:  t,
		calls: map[string]*modelCall{},
		tools: map[string]*toolCall{},
	}
	s.prompt.max = 2 * r.opts.MaxContent
	s.ctx, s.span = r.tracer.Start(r.ctx, "invoke_agent cursor-agent",
		trace.WithTimestamp(t),
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(
			OperationName.String(OpInvokeAgent),
			ProviderName.String("cursor"),
			AgentName.String("cursor-agent"),
		))
	return s
}

// handle records one event and returns the latest time it produced.
func (s *session) handle(ev parse.Event, t time.Time) time.Time {
	h := ev.Head()
	if h.SessionID != "" && s.convID == "" {
		s.convID = h.SessionID
		s.span.SetAttributes(ConversationID.String(h.SessionID))
	}
	end := t
	switch e := ev.(type) {
	case *parse.Init:
		s.init(e)
	case *parse.Prompt:
		if s.rec.opts.CaptureContent {
			s.prompt.add(e.Text)
		}
	case *parse.Thinking:
		s.modelCallFor(h, t).think(e, t)
	case *parse.Assistant:
		s.modelCallFor(h, t).say(e, t)
	case *parse.ToolStarted:
		s.startTool(e, t)
	case *parse.ToolCompleted:
		end = s.completeTool(e, t)
	case *parse.Result:
		s.setResult(e, t)
	case *parse.Connection:
		s.span.AddEvent(EventConnection, trace.WithTimestamp(t), trace.WithAttributes(
			EventSubtype.String(h.Subtype), EventLine.Int(h.Line)))
	case *parse.Retry:
		attrs := []attribute.KeyValue{EventSubtype.String(h.Subtype), EventLine.Int(h.Line)}
		if e.Attempt > 0 {
			attrs = append(attrs, RetryAttempt.Int64(e.Attempt))
		}
		s.span.AddEvent(EventRetry, trace.WithTimestamp(t), trace.WithAttributes(attrs...))
	case *parse.Error:
		s.span.AddEvent(EventAgentError, trace.WithTimestamp(t), trace.WithAttributes(
			EventMessage.String(s.rec.text(e.Message, maxMessage)), EventLine.Int(h.Line)))
	case *parse.Unknown:
		if s.unknow++; s.unknow <= maxEventsPerKind {
			s.span.AddEvent(EventUnknown, trace.WithTimestamp(t), trace.WithAttributes(
				EventType.String(s.rec.text(h.Type, maxMessage)), EventSubtype.String(s.rec.text(h.Subtype, maxMessage)),
				EventLine.Int(h.Line), EventBytes.Int(e.Size)))
		}
	case *parse.Invalid:
		if s.invalid++; s.invalid <= maxEventsPerKind {
			s.span.AddEvent(EventInvalidLine, trace.WithTimestamp(t), trace.WithAttributes(
				EventLine.Int(h.Line), EventBytes.Int(e.Size), EventError.String(e.Err.Error())))
		}
	}
	switch ev.(type) {
	case *parse.Init, *parse.Prompt, *parse.Thinking, *parse.Assistant, *parse.ToolStarted, *parse.ToolCompleted:
		// A step of the agent: the next model call waits from here. A
		// reconnect or an error line while it waits does not end the wait.
		s.prev = later(t, end)
	}
	end = later(t, end)
	s.last = later(s.last, end)
	return end
}

func (s *session) init(e *parse.Init) {
	s.sawInit = true
	s.model = e.Model
	var attrs []attribute.KeyValue
	add := func(k attribute.Key, v string) {
		if v = s.rec.text(v, maxMessage); v != "" {
			attrs = append(attrs, k.String(v))
		}
	}
	add(RequestModel, e.Model)
	add(Cwd, e.Cwd)
	add(PermissionMode, e.PermissionMode)
	add(APIKeySource, e.APIKeySource)
	add(RequestID, e.RequestID)
	s.span.SetAttributes(attrs...)
}

func (s *session) setResult(e *parse.Result, t time.Time) {
	s.result = e
	var attrs []attribute.KeyValue
	if e.DurationMs > 0 {
		attrs = append(attrs, DurationMs.Int64(e.DurationMs))
	}
	if e.DurationAPIMs > 0 {
		attrs = append(attrs, DurationAPIMs.Int64(e.DurationAPIMs))
	}
	if e.RequestID != "" {
		attrs = append(attrs, RequestID.String(e.RequestID))
	}
	if u := e.Usage; u != nil {
		attrs = append(attrs,
			InputTokens.Int64(u.InputTokens), OutputTokens.Int64(u.OutputTokens),
			CacheReadTokens.Int64(u.CacheReadTokens), CacheCreateTokens.Int64(u.CacheCreationTokens))
	}
	if s.rec.opts.CaptureContent && !e.IsError && e.Text != "" {
		attrs = append(attrs, OutputMessages.String(messages("assistant", s.rec.text(e.Text, s.rec.opts.MaxContent))))
	}
	s.span.SetAttributes(attrs...)
	if e.IsError && (s.current == nil || s.current.yielded()) {
		// The agent had handed the model its next step and the step failed:
		// the wait for it is a model call, and often the longest one.
		mc := s.openModelCall("", t)
		mc.see(t)
		mc.failure = s.rec.text(cmp.Or(e.Error, e.Text, "the agent reported an error"), maxMessage)
	}
	// Nothing more is expected of the model: its calls end where their own
	// work ended, not when the agent process exits.
	for _, mc := range slices.Clone(s.open) {
		mc.superseded = true
		s.closeIfDone(mc)
	}
	s.current = nil
}

// modelCallFor finds the model call an output event belongs to, opening a
// new one when the event starts the agent's next step.
func (s *session) modelCallFor(h *parse.Header, t time.Time) *modelCall {
	if id := h.ModelCallID; id != "" {
		if mc, ok := s.calls[id]; ok {
			return mc
		}
		if mc := s.current; mc != nil && mc.id == "" && !mc.yielded() {
			// Output that came before the id (thinking, partial text)
			// opened this call; the id names it now.
			mc.name(id)
			s.calls[id] = mc
			return mc
		}
		return s.openModelCall(id, t)
	}
	if mc := s.current; mc != nil && !mc.yielded() {
		return mc
	}
	return s.openModelCall("", t)
}

// openModelCall starts a model call. It starts where the agent's previous
// step ended, so that the span covers the wait for the model's first
// output, not only the output.
func (s *session) openModelCall(id string, t time.Time) *modelCall {
	start := s.prev
	if start.IsZero() || start.After(t) {
		start = t
	}
	// Nothing in a session starts before it: a stream time earlier than the
	// session's start (clock skew, a clock set back) is moved up to it.
	mc := s.newModelCall(later(start, s.start))
	if id != "" {
		mc.name(id)
		s.calls[id] = mc
	}
	if prev := s.current; prev != nil {
		prev.superseded = true
		s.closeIfDone(prev)
	}
	s.current = mc
	s.open = append(s.open, mc)
	return mc
}

// closeIfDone ends a model call once a later one has begun and none of its
// tool calls is still running.
func (s *session) closeIfDone(mc *modelCall) {
	if mc.superseded && mc.running == 0 {
		s.endModelCall(mc)
	}
}

func (s *session) endModelCall(mc *modelCall) {
	if i := slices.Index(s.open, mc); i >= 0 {
		s.open = slices.Delete(s.open, i, i+1)
		mc.end()
		s.forget(mc)
	}
}

// maxEnded is how many ended model calls a session remembers by id.
const maxEnded = 1024

// forget keeps of an ended model call only what a late event for it needs,
// its id and span context, so that a session's state is its open spans
// and a bounded list of ids, however long it runs. Past maxEnded, the
// oldest ids are forgotten: an event naming one opens a new model call.
func (s *session) forget(mc *modelCall) {
	if mc.id == "" {
		return
	}
	ctx := trace.ContextWithSpanContext(s.ctx, mc.span.SpanContext())
	s.calls[mc.id] = &modelCall{sess: s, id: mc.id, ctx: ctx, span: trace.SpanFromContext(ctx),
		start: mc.start, last: mc.last, superseded: true}
	s.ended = append(s.ended, mc.id)
	if len(s.ended) > maxEnded {
		delete(s.calls, s.ended[0])
		s.ended = slices.Delete(s.ended, 0, 1)
	}
}

// finish ends the session and everything still open in it.
func (s *session) finish(end End) {
	endTime := later(end.Time, s.last)
	// Tool calls that never completed end with the session, in the order
	// they started.
	running := make([]*toolCall, 0, len(s.tools))
	for _, tc := range s.tools {
		running = append(running, tc)
	}
	slices.SortFunc(running, func(a, b *toolCall) int {
		return cmp.Or(a.start.Compare(b.start), cmp.Compare(a.call.ID, b.call.ID))
	})
	interrupted := len(end.Signals) > 0
	for _, tc := range running {
		tc.parent.last = later(tc.parent.last, endTime)
		tc.endIncomplete(endTime, interrupted, end.UntracedBytes > 0)
	}
	for _, mc := range slices.Clone(s.open) {
		s.endModelCall(mc)
	}

	var attrs []attribute.KeyValue
	if s.invalid > 0 {
		attrs = append(attrs, InvalidLines.Int(s.invalid))
	}
	if s.unknow > 0 {
		attrs = append(attrs, UnknownEvents.Int(s.unknow))
	}
	if end.UntracedBytes > 0 {
		attrs = append(attrs, UntracedBytes.Int64(end.UntracedBytes))
	}
	if s.rec.opts.CaptureContent && s.prompt.b.Len() > 0 {
		attrs = append(attrs, InputMessages.String(messages("user", s.rec.text(s.prompt.String(), s.rec.opts.MaxContent))))
	}
	if end.ExitCode != nil {
		attrs = append(attrs, ExitCode.Int(*end.ExitCode))
	}
	for _, sig := range end.Signals {
		s.span.AddEvent(EventSignal, trace.WithTimestamp(sig.At), trace.WithAttributes(SignalName.String(sig.Name)))
	}
	attrs = append(attrs, end.Attributes...)
	if errType, msg := s.failure(end); errType != "" {
		attrs = append(attrs, ErrorType.String(errType))
		if tail := s.rec.text(end.StderrTail, maxMessage); tail != "" {
			attrs = append(attrs, StderrTail.String(tail))
		}
		s.span.SetStatus(codes.Error, msg)
	}
	s.span.SetAttributes(attrs...)
	s.span.End(trace.WithTimestamp(endTime))
}

// failure says why a session failed, if it did: the most telling reason
// names error.type, and all of them make the status message. A signal is
// a reason only when the run did not end well: an agent that handles
// Ctrl-C and still ends with a success result did not fail.
func (s *session) failure(end End) (errType, msg string) {
	var reasons []string
	note := func(t, m string) {
		if errType == "" {
			errType = t
		}
		reasons = append(reasons, m)
	}
	switch {
	case s.result == nil && !end.NoStream && end.UntracedBytes > 0:
		// The result may be in what was not traced: the exit status says
		// how the run ended.
	case s.result == nil && !end.NoStream:
		note("no_result", "stream ended without a result")
	case s.result == nil:
	case s.result.IsError:
		note("agent_error", s.rec.text(cmp.Or(s.result.Error, s.result.Text, "the agent reported an error"), maxMessage))
	}
	if end.ExitCode != nil && *end.ExitCode != 0 {
		note("exit_status", fmt.Sprintf("agent exited with status %d", *end.ExitCode))
	}
	if len(end.Signals) > 0 && len(reasons) > 0 {
		errType, reasons = "interrupted", append([]string{"interrupted"}, reasons...)
	}
	return errType, strings.Join(reasons, "; ")
}
