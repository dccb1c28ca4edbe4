package spanmap

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// modelCall is the state of one open model call span.
type modelCall struct {
	sess *session
	span trace.Span
	ctx  context.Context
	id   string

	start, last time.Time
	firstOutput time.Time // the model's first thinking, text or tool call
	tools       int       // tool calls issued
	running     int       // tool calls issued and not completed
	superseded  bool      // a later model call has begun
	failure     string    // why the call failed, when the session's result says it did

	phase      *thinkingPhase // the thinking phase under way, if any
	thinking   time.Duration  // all phases so far
	deltas     int            // assistant partial-output chunks
	messages   boundedText    // consolidated assistant messages (content capture)
	deltaText  boundedText    // partial output, used when no message consolidates it
	hasMessage bool
}

// thinkingPhase is one run of thinking deltas, recorded as one span event.
type thinkingPhase struct {
	start, last time.Time
	deltas      int
	text        boundedText
}

func (s *session) newModelCall(start time.Time) *modelCall {
	name := "chat"
	if s.model != "" {
		name = "chat " + s.model
	}
	attrs := []attribute.KeyValue{OperationName.String(OpChat), ProviderName.String("cursor")}
	if s.model != "" {
		attrs = append(attrs, RequestModel.String(s.model))
	}
	mc := &modelCall{sess: s, start: start, last: start}
	mc.ctx, mc.span = s.rec.tracer.Start(s.ctx, name,
		trace.WithTimestamp(start),
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attrs...))
	limit := 2 * s.rec.opts.MaxContent // collect more than is kept, so redaction sees whole secrets
	mc.messages.max, mc.deltaText.max = limit, limit
	return mc
}

func (mc *modelCall) name(id string) {
	mc.id = id
	mc.span.SetAttributes(ModelCallID.String(id))
}

// yielded says the model has handed over to its tools and they are done:
// output after this point is the agent's next step.
func (mc *modelCall) yielded() bool { return mc.tools > 0 && mc.running == 0 }

func (mc *modelCall) see(t time.Time) { mc.last = later(mc.last, t) }

// output notes the model's output at t: the first one ends the wait for
// the model's first token.
func (mc *modelCall) output(t time.Time) {
	mc.see(t)
	if mc.firstOutput.IsZero() {
		mc.firstOutput = t
	}
}

func (mc *modelCall) think(e *parse.Thinking, t time.Time) {
	mc.output(t)
	if mc.phase == nil {
		mc.phase = &thinkingPhase{start: t, last: t}
		mc.phase.text.max = 2 * mc.sess.rec.opts.MaxContent
	}
	p := mc.phase
	p.last = later(p.last, t)
	if e.Done {
		mc.endThinking()
		return
	}
	p.deltas++
	if mc.sess.rec.opts.CaptureContent {
		p.text.add(e.Text)
	}
}

// endThinking records the phase under way as one event: its start, length
// and number of deltas, never one event per delta.
func (mc *modelCall) endThinking() {
	p := mc.phase
	if p == nil {
		return
	}
	mc.phase = nil
	d := p.last.Sub(p.start)
	mc.thinking += d
	attrs := []attribute.KeyValue{ThinkingMs.Int64(d.Milliseconds()), ThinkingDeltas.Int(p.deltas)}
	if mc.sess.rec.opts.CaptureContent && p.text.b.Len() > 0 {
		attrs = append(attrs, ThinkingText.String(mc.sess.rec.text(p.text.String(), mc.sess.rec.opts.MaxContent)))
	}
	mc.span.AddEvent(EventThinking, trace.WithTimestamp(p.start), trace.WithAttributes(attrs...))
}

func (mc *modelCall) say(e *parse.Assistant, t time.Time) {
	mc.output(t)
	mc.endThinking()
	capture := mc.sess.rec.opts.CaptureContent
	if e.Delta {
		mc.deltas++
		if capture {
			mc.deltaText.add(e.Text)
		}
		return
	}
	mc.hasMessage = true
	if capture {
		mc.messages.add(e.Text)
	}
}

func (mc *modelCall) end() {
	mc.endThinking()
	attrs := []attribute.KeyValue{ToolCalls.Int(mc.tools)}
	if !mc.firstOutput.IsZero() {
		attrs = append(attrs, FirstTokenMs.Int64(mc.firstOutput.Sub(mc.start).Milliseconds()))
	}
	if mc.thinking > 0 {
		attrs = append(attrs, ThinkingMs.Int64(mc.thinking.Milliseconds()))
	}
	if mc.sess.rec.opts.CaptureContent {
		out := &mc.deltaText
		if mc.hasMessage {
			out = &mc.messages
		}
		if out.b.Len() > 0 {
			attrs = append(attrs, OutputMessages.String(messages("assistant", mc.sess.rec.text(out.String(), mc.sess.rec.opts.MaxContent))))
		}
	}
	if mc.failure != "" {
		attrs = append(attrs, ErrorType.String("agent_error"))
		mc.span.SetStatus(codes.Error, mc.failure)
	}
	mc.span.SetAttributes(attrs...)
	mc.span.End(trace.WithTimestamp(mc.last))
	// The session keeps ended calls by id for late events; their text is
	// recorded and need not stay.
	mc.messages, mc.deltaText = boundedText{}, boundedText{}
}
