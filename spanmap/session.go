package spanmap

import (
	"cmp"
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

// session is the state of one open session.
type session struct {
	rec   *Stream
	span  draft
	clock clock

	startFixed  bool      // the session began at a known time (Begin)
	startKnown  bool      // its start is known: fixed, or told by the result's duration_ms
	last        time.Time // the latest time anything in the session happened
	prev        time.Time // where the agent's previous step ended: a model call starts here
	prevOwnTime bool      // prev is a time of the stream or of a read, not inherited
	readAt      time.Time // when the event being recorded was read (live)
	waiting     []parse.Event

	sawInit bool
	model   string
	convID  string

	current    *modelCall             // the model call new output belongs to
	calls      map[string]*modelCall  // open model calls by model_call_id
	open       []*modelCall           // model calls not yet ended
	held       []*modelCall           // ended, made when the session's start is known
	modelCalls int                    // opened so far
	tools      map[string]*toolCall   // tool calls started and not completed, by call_id
	waits      map[string]*streamWait // waits on the person not yet answered, by interaction id

	result          *parse.Result
	prompt          boundedText
	invalid, unknow int
	waited          time.Duration // on interaction requests (approvals)

	activity     time.Time // when the agent last gave output
	stalls       int
	longestStall time.Duration
}

// RootName names a cursor-agent root: a stream's session span and a hooks
// turn's root alike (ACP names its root after the agent it runs).
const RootName = "invoke_agent cursor-agent"

// newSession opens a session whose span has the span context sc, or,
// when sc is invalid, one reserved now.
func (r *Stream) newSession(sc trace.SpanContext) *session {
	s := &session{
		rec:   r,
		calls: map[string]*modelCall{},
		tools: map[string]*toolCall{},
		waits: map[string]*streamWait{},
	}
	s.prompt.max = 2 * r.opts.MaxContent
	s.clock.shift = r.opts.Shift
	if !sc.IsValid() {
		sc = r.reserveRoot(trace.SpanContext{}, RootName)
	}
	s.span = draft{
		sc:   sc,
		name: RootName,
		// cursor-agent runs outside cursor-otel, and talks to Cursor's
		// service: the conventions' invoke_agent client span.
		kind:  trace.SpanKindClient,
		attrs: append(r.rootAttributes("cursor-agent"), Source.String("stream")),
	}
	return s
}

// fixStart says the session began at t (a wrapper starting the agent).
func (s *session) fixStart(t time.Time) {
	s.startFixed, s.startKnown = true, true
	s.span.start, s.clock.floor = t, t
	s.clock.latest = later(s.clock.latest, t)
	s.last = later(s.last, t)
}

// record places an event in time and handles it; in replay, events before
// the session's first time wait for it.
func (s *session) record(ev parse.Event, readAt time.Time) {
	if d, ok := ev.(*parse.Deltas); ok {
		// Deltas replay's decoder folded (parse.WithFoldedDeltas), recorded
		// as their last standing for all: they were output, so a stall is
		// measured from the one before the last.
		s.activity = later(s.activity, d.Before.Add(s.clock.shift))
	}
	s.readAt = readAt
	t, ownTime, ok := s.clock.place(parse.OwnTime(ev), readAt)
	if !ok {
		if len(s.waiting) < maxWaiting {
			s.waiting = append(s.waiting, ev)
			return
		}
		t = s.rec.opts.Now()
		s.clock.latest = t
	}
	s.flushWaiting(t)
	if s.clock.live {
		s.output(readAt)
	} else if ownTime {
		s.output(t)
	}
	s.handle(ev, t, ownTime)
}

func (s *session) flushWaiting(t time.Time) {
	waiting := s.waiting
	s.waiting = nil
	for _, ev := range waiting {
		s.handle(ev, t, false)
	}
}

// handle records one event at t; told says t is the event's own.
func (s *session) handle(ev parse.Event, t time.Time, ownTime bool) {
	h := ev.Head()
	if h.SessionID != "" && s.convID == "" {
		s.convID = h.SessionID
		s.span.attrs = s.rec.appendFacts(s.span.attrs, said{ConversationID, h.SessionID})
	}
	s.span.grow(t, t)
	end := t
	switch e := ev.(type) {
	case *parse.Init:
		s.init(e)
	case *parse.Prompt:
		if s.rec.opts.CaptureContent {
			s.prompt.add(e.Text)
		}
	case *parse.Thinking:
		s.modelCallFor(h, t, ownTime).think(e, t, ownTime, 1)
	case *parse.Deltas:
		th := parse.Thinking{Header: e.Header}
		s.modelCallFor(h, t, ownTime).think(&th, t, ownTime, e.Count)
	case *parse.Assistant:
		s.modelCallFor(h, t, ownTime).say(e, t, ownTime)
	case *parse.ToolStarted:
		s.startTool(e, t, ownTime)
	case *parse.ToolCompleted:
		end = s.completeTool(e, t)
	case *parse.Result:
		s.setResult(e)
	case *parse.Connection:
		s.span.addEvent(EventConnection, t, EventSubtype.String(h.Subtype), EventLine.Int(h.Line))
	case *parse.Retry:
		attrs := []attribute.KeyValue{EventSubtype.String(h.Subtype), EventLine.Int(h.Line)}
		if e.Attempt > 0 {
			attrs = append(attrs, RetryAttempt.Int64(e.Attempt))
		}
		s.span.addEvent(EventRetry, t, attrs...)
	case *parse.Error:
		s.span.addEvent(EventAgentError, t, EventMessage.String(s.rec.text(e.Message, maxMessage)), EventLine.Int(h.Line))
	case *parse.Interaction:
		s.interaction(e, t)
	case *parse.Notice:
		s.notice(e, t)
	case *parse.Unknown:
		if s.unknow++; s.unknow <= maxEventsPerKind {
			s.span.addEvent(EventUnknown, t, EventType.String(s.rec.text(h.Type, maxMessage)),
				EventSubtype.String(s.rec.text(h.Subtype, maxMessage)), EventLine.Int(h.Line), EventBytes.Int(e.Size))
		}
	case *parse.Invalid:
		if s.invalid++; s.invalid <= maxEventsPerKind {
			s.span.addEvent(EventInvalidLine, t, EventLine.Int(h.Line), EventBytes.Int(e.Size), EventError.String(s.rec.text(e.Err.Error(), maxMessage)))
		}
	}
	switch ev.(type) {
	case *parse.Init, *parse.Prompt, *parse.Thinking, *parse.Deltas, *parse.Assistant, *parse.ToolStarted, *parse.ToolCompleted:
		// A step of the agent: the next model call waits from here. A
		// reconnect or an error line while it waits does not end the wait.
		s.prev, s.prevOwnTime = later(t, end), ownTime
	}
	s.last = later(s.last, later(t, end))
}

func (s *session) init(e *parse.Init) {
	s.sawInit = true
	s.model = s.rec.text(e.Model, maxMessage)
	s.span.attrs = s.rec.appendFacts(s.span.attrs, said{RequestModel, e.Model}, said{Cwd, e.Cwd},
		said{PermissionMode, e.PermissionMode}, said{APIKeySource, e.APIKeySource}, said{RequestID, e.RequestID})
}

func (s *session) setResult(e *parse.Result) {
	s.result = e
	var attrs []attribute.KeyValue
	if e.DurationMs > 0 {
		attrs = append(attrs, DurationMs.Int64(e.DurationMs))
	}
	if e.DurationAPIMs > 0 {
		attrs = append(attrs, DurationAPIMs.Int64(e.DurationAPIMs))
	}
	if e.RequestID != "" {
		attrs = append(attrs, s.rec.str(RequestID, e.RequestID))
	}
	if u := e.Usage; u != nil {
		// Only the session's total is known: it is the session's usage
		// (its totals, with the cost, at its end).
		attrs = append(attrs, usageAttributes(*u)...)
	}
	if s.rec.opts.CaptureContent && e.Text != "" {
		finish := "stop"
		if e.IsError {
			finish = "error"
		}
		attrs = append(attrs, OutputMessages.String(s.rec.outputMessage(finish, nil, s.rec.text(e.Text, s.rec.opts.MaxContent), nil)))
	}
	s.span.attrs = append(s.span.attrs, attrs...)
	if e.IsError {
		if mc := s.current; mc != nil && !mc.yielded() && mc.hasOutput() {
			// The call under way when the agent gave up: it failed. A
			// result with no model output invents no model call.
			mc.failure = s.rec.text(cmp.Or(e.Error, e.Text, "the agent reported an error"), maxMessage)
		}
	}
	// Nothing more is expected of the model: its calls end where their own
	// work ended, not when the agent process exits.
	for _, mc := range slices.Clone(s.open) {
		mc.superseded = true
		s.closeIfDone(mc)
	}
	s.current = nil
}

// notice records a system event other than init, under a name of its own
// when its subtype has one.
func (s *session) notice(e *parse.Notice, t time.Time) {
	name := EventSystem
	switch e.Subtype {
	case "background_shell_timeout":
		name = EventBackgroundShellTimeout
	case "task_notification":
		name = EventTaskNotification
	}
	attrs := []attribute.KeyValue{EventSubtype.String(s.rec.text(e.Subtype, maxMessage)), EventLine.Int(e.Line)}
	if msg := s.rec.text(e.Message, maxMessage); msg != "" {
		attrs = append(attrs, EventMessage.String(msg))
	}
	if e.CallID != "" {
		attrs = append(attrs, s.rec.str(ToolCallID, e.CallID))
	}
	s.span.addEvent(name, t, attrs...)
}

// modelCallFor finds the model call an output event belongs to, opening a
// new one when the event starts the agent's next step.
func (s *session) modelCallFor(h *parse.Header, t time.Time, ownTime bool) *modelCall {
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
		return s.openModelCall(id, t, ownTime)
	}
	if mc := s.current; mc != nil && !mc.yielded() {
		return mc
	}
	return s.openModelCall("", t, ownTime)
}

// openModelCall starts a model call. It starts where the agent's previous
// step ended, so that the span covers the wait for the model's first
// output, not only the output; a microsecond after, when a model call came
// before, so that the two do not touch (Jaeger's critical path skips a
// span that ends exactly where the next begins). The first model call of
// a replayed session whose first lines had no time starts with the
// session, whose start the result's duration_ms may move earlier.
func (s *session) openModelCall(id string, t time.Time, ownTime bool) *modelCall {
	start := s.prev
	if start.IsZero() || start.After(t) {
		start = t
	}
	withSession := s.modelCalls == 0 && !s.prevOwnTime && !s.startFixed
	waitFrom := start
	if s.modelCalls > 0 {
		// The nudge never moves past a time the stream gave: an output
		// whose time is inherited is at the model call's start.
		if next := start.Add(time.Microsecond); !next.After(t) || !ownTime {
			start = next
		}
	}
	s.modelCalls++
	mc := s.newModelCall(start)
	mc.withSession, mc.waitFrom = withSession, waitFrom
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

// endModelCall ends a model call and forgets it: the session's state is
// its open spans, however long it runs. An event that names an ended
// model call later (which no agent was seen to print) opens a new one: the
// ended one's span is made, and cannot grow to cover it.
func (s *session) endModelCall(mc *modelCall) {
	if i := slices.Index(s.open, mc); i >= 0 {
		s.open = slices.Delete(s.open, i, i+1)
		mc.end()
		if mc.id != "" && s.calls[mc.id] == mc {
			delete(s.calls, mc.id)
		}
	}
}

// finish ends the session and everything still open in it.
func (s *session) finish(end End) {
	if len(s.waiting) > 0 {
		t := s.clock.latest
		if t.IsZero() {
			t = s.rec.opts.Now()
		}
		s.flushWaiting(t)
	}
	endTime := later(end.Time, s.last)
	if endTime.IsZero() {
		endTime = s.rec.opts.Now()
	}
	// Tool calls that never completed end with the session, in the order
	// they started.
	running := make([]*toolCall, 0, len(s.tools))
	for _, tc := range s.tools {
		running = append(running, tc)
	}
	slices.SortFunc(running, func(a, b *toolCall) int {
		return cmp.Or(a.start.Compare(b.start), cmp.Compare(a.call.ID, b.call.ID))
	})
	// The silence before the end: a stall, or what --stall-timeout ended.
	if gap := endTime.Sub(s.activity); !s.activity.IsZero() && (end.StallTimeout > 0 || s.rec.opts.StallAfter > 0 && gap > s.rec.opts.StallAfter) {
		s.stall(s.activity, endTime)
	}
	interrupted := len(end.Signals) > 0
	for _, tc := range running {
		tc.parent.see(endTime)
		tc.endIncomplete(endTime, streamClosing(end), interrupted)
	}
	s.endWaits(endTime, streamClosing(end), interrupted)
	for _, mc := range slices.Clone(s.open) {
		s.endModelCall(mc)
	}

	// A replayed session whose result says how long the agent ran began
	// no later than that before its end: its first lines carry no time.
	s.span.grow(s.span.start, endTime)
	if r := s.result; r != nil && r.DurationMs > 0 && !s.startFixed {
		if start := endTime.Add(-time.Duration(r.DurationMs) * time.Millisecond); start.Before(s.span.start) {
			s.span.start = start
		}
		s.startKnown = true
	}
	for _, mc := range s.held {
		mc.p.start = earlier(mc.p.start, s.span.start)
		mc.emit()
	}

	attrs := s.span.attrs
	if s.invalid > 0 {
		attrs = append(attrs, InvalidLines.Int(s.invalid))
	}
	if s.unknow > 0 {
		attrs = append(attrs, UnknownEvents.Int(s.unknow))
	}
	if s.waited > 0 {
		attrs = append(attrs, InteractionWaitMs.Int64(s.waited.Milliseconds()))
	}
	if end.UntracedBytes > 0 {
		attrs = append(attrs, UntracedBytes.Int64(end.UntracedBytes))
	}
	if s.rec.opts.CaptureContent && s.prompt.b.Len() > 0 {
		attrs = append(attrs, InputMessages.String(inputMessage(s.rec.text(s.prompt.String(), s.rec.opts.MaxContent))))
	}
	if end.ExitCode != nil {
		attrs = append(attrs, ExitCode.Int(*end.ExitCode))
	}
	attrs = append(attrs, s.stallAttributes()...)
	if end.StallTimeout > 0 {
		attrs = append(attrs, StallTimeout.Int64(end.StallTimeout.Milliseconds()))
	}
	for _, sig := range end.Signals {
		s.span.addEvent(EventSignal, sig.At, SignalName.String(sig.Name))
	}
	attrs = append(attrs, end.Attributes...)
	costAttrs, overBudget := s.cost()
	attrs = append(attrs, costAttrs...)
	if overBudget != "" {
		s.rec.overBudget = append(s.rec.overBudget, overBudget)
	}
	if errType, msg := s.failure(end, overBudget); errType != "" {
		attrs = append(attrs, ErrorType.String(errType))
		if tail := s.rec.text(end.StderrTail, maxMessage); tail != "" {
			attrs = append(attrs, StderrTail.String(tail))
		}
		s.span.code, s.span.message = codes.Error, msg
	}
	s.span.attrs = attrs
	if last, ok := s.rec.lastTurn(s.convID); ok && last.TraceID() != s.span.sc.TraceID() {
		s.span.links = append(s.span.links, trace.Link{SpanContext: last})
	}
	s.rec.setLastTurn(s.convID, s.span.sc)
	s.rec.emit(&s.span)
}

// failure says why a session failed, if it did: the most telling reason
// names error.type, and all of them make the status message. A signal is
// a reason only when the run did not end well: an agent that handles
// Ctrl-C and still ends with a success result did not fail. Being over
// the budget is a reason after all others: a run that failed failed first.
func (s *session) failure(end End, overBudget string) (errType, msg string) {
	var reasons []string
	note := func(t, m string) {
		if errType == "" {
			errType = t
		}
		reasons = append(reasons, m)
	}
	if end.StallTimeout > 0 {
		note(ErrStallTimeout, fmt.Sprintf("no output for %s: cursor-otel stopped the agent (--stall-timeout)", end.StallTimeout))
	}
	switch {
	case s.result == nil && end.Cancelled:
		// The person cancelled the turn: its end never came, and nothing
		// failed (unfinished).
	case s.result == nil && !end.NoStream && end.UntracedBytes > 0:
		// The result may be in what was not traced: the exit status says
		// how the run ended.
	case s.result == nil && !end.NoStream:
		// A turn whose end never came, by the rule every source follows
		// (unfinished): as the hooks' turn without its stop, and ACP's
		// prompt the agent exited before answering.
		note(ErrIncomplete, "stream ended without a result")
	case s.result == nil:
	case s.result.IsError:
		note(ErrAgent, s.rec.text(cmp.Or(s.result.Error, s.result.Text, "the agent reported an error"), maxMessage))
	}
	if end.ExitCode != nil && *end.ExitCode != 0 && !end.Cancelled {
		note(ErrExitStatus, fmt.Sprintf("agent exited with status %d", *end.ExitCode))
	}
	if len(end.Signals) > 0 && len(reasons) > 0 && !end.Cancelled {
		errType, reasons = ErrInterrupted, append([]string{"interrupted"}, reasons...)
	}
	if overBudget != "" {
		note(ErrBudgetExceeded, overBudget)
	}
	return errType, strings.Join(reasons, "; ")
}
