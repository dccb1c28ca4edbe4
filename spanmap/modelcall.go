package spanmap

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"

	"github.com/cursor-otel/cursor-otel/parse"
)

// modelCall is the state of one open model call.
type modelCall struct {
	sess *session
	p    draft
	id   string

	withSession  bool      // it starts with its session (see openModelCall)
	waitFrom     time.Time // where the wait for the model began: the previous step's end
	firstOutput  time.Time // the model's first thinking, text or tool call
	firstOwnTime bool      // and that time is its own, not inherited
	last         time.Time
	tools        int  // tool calls issued
	running      int  // tool calls issued and not completed
	superseded   bool // a later model call has begun
	done         bool // ended
	failure      string

	phase     *thinkingPhase // the thinking phase under way, if any
	thinking  time.Duration  // all phases so far
	reasoning boundedText    // thinking text (content capture)
	deltas    int            // assistant partial-output chunks
	messages  boundedText    // consolidated assistant messages (content capture)
	deltaText boundedText    // partial output, used when no message consolidates it
	hasText   bool
	calls     []toolPart // the tool calls it issued, for its output message
}

// thinkingPhase is one run of thinking deltas (a stream's, ACP's),
// recorded as one span event, never one per delta.
type thinkingPhase struct {
	start, last time.Time
	deltas      int
	text        boundedText
}

// attributes are the phase's cursor.thinking event's: how long it lasted,
// its deltas, and its text with content capture.
func (p *thinkingPhase) attributes(r *shaper) []attribute.KeyValue {
	attrs := []attribute.KeyValue{ThinkingMs.Int64(p.last.Sub(p.start).Milliseconds()), ThinkingDeltas.Int(p.deltas)}
	if r.opts.CaptureContent && p.text.b.Len() > 0 {
		if text := r.text(p.text.String(), r.opts.MaxContent); text != "" {
			attrs = append(attrs, ThinkingText.String(text))
		}
	}
	return attrs
}

func (s *session) newModelCall(start time.Time) *modelCall {
	mc := &modelCall{sess: s, last: start, p: chatDraft(s.model)}
	mc.p.sc, mc.p.parent, mc.p.in, mc.p.start, mc.p.end = s.rec.child(s.span.sc), s.span.sc, &s.span, start, start
	limit := 2 * s.rec.opts.MaxContent // collect more than is kept, so redaction sees whole secrets
	mc.messages.max, mc.deltaText.max, mc.reasoning.max = limit, limit, limit
	return mc
}

func (mc *modelCall) name(id string) {
	mc.id = id
	mc.p.attrs = append(mc.p.attrs, mc.sess.rec.str(ModelCallID, id))
}

// yielded says the model has handed over to its tools and they are done:
// output after this point is the agent's next step.
func (mc *modelCall) yielded() bool { return mc.tools > 0 && mc.running == 0 }

// hasOutput says the model produced anything in this call.
func (mc *modelCall) hasOutput() bool { return !mc.firstOutput.IsZero() }

func (mc *modelCall) see(t time.Time) { mc.last = later(mc.last, t) }

// output notes the model's output at t: the first one ends the wait for
// the model's first token.
func (mc *modelCall) output(t time.Time, ownTime bool) {
	t = later(t, mc.p.start) // an inherited time, before a nudged start
	mc.see(t)
	if mc.firstOutput.IsZero() {
		mc.firstOutput, mc.firstOwnTime = t, ownTime
	}
}

// think records thinking at t: a delta, or n of them folded into one
// (parse.Deltas), or the end of the phase.
func (mc *modelCall) think(e *parse.Thinking, t time.Time, ownTime bool, n int) {
	mc.output(t, ownTime)
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
	p.deltas += n
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
	mc.thinking += p.last.Sub(p.start)
	if mc.sess.rec.opts.CaptureContent && p.text.b.Len() > 0 {
		mc.reasoning.add(p.text.String())
	}
	mc.p.addEvent(EventThinking, p.start, p.attributes(&mc.sess.rec.shaper)...)
}

func (mc *modelCall) say(e *parse.Assistant, t time.Time, ownTime bool) {
	mc.output(t, ownTime)
	mc.endThinking()
	capture := mc.sess.rec.opts.CaptureContent
	if e.Delta {
		mc.deltas++
		if capture {
			mc.deltaText.add(e.Text)
		}
		return
	}
	mc.hasText = true
	if capture {
		mc.messages.add(e.Text)
	}
}

// end closes the model call: it is made now, or, when its start is its
// session's and not known yet, with the session.
func (mc *modelCall) end() {
	mc.endThinking()
	mc.done = true
	mc.p.grow(mc.p.start, mc.last)
	if mc.withSession && !mc.sess.startKnown {
		mc.sess.held = append(mc.sess.held, mc)
		return
	}
	mc.emit()
}

func (mc *modelCall) emit() {
	s, rec := mc.sess, mc.sess.rec
	attrs := mc.p.attrs
	// The time to the first output is a measure only when both ends are:
	// the output's own time, and a start that is not a guess.
	if !mc.firstOutput.IsZero() && mc.firstOwnTime && (!mc.withSession || s.startKnown) {
		from := mc.waitFrom
		if mc.withSession {
			from = mc.p.start
		}
		ttft := max(mc.firstOutput.Sub(from), 0)
		attrs = append(attrs, FirstTokenMs.Int64(ttft.Milliseconds()), TimeToFirstChunk.Float64(ttft.Seconds()))
	}
	if mc.thinking > 0 {
		attrs = append(attrs, ThinkingMs.Int64(mc.thinking.Milliseconds()))
	}
	if mc.failure != "" {
		attrs = append(attrs, ErrorType.String(ErrAgent))
		mc.p.code, mc.p.message = codes.Error, mc.failure
	}
	mc.p.attrs = attrs
	finish := "stop"
	if mc.tools > 0 {
		finish = "tool_call"
	}
	if mc.failure != "" {
		finish = "error"
	}
	var text string
	var reasoning []string
	if rec.opts.CaptureContent {
		out := &mc.deltaText
		if mc.hasText {
			out = &mc.messages
		}
		if out.b.Len() > 0 {
			text = rec.text(out.String(), rec.opts.MaxContent)
		}
		if mc.reasoning.b.Len() > 0 {
			reasoning = []string{rec.text(mc.reasoning.String(), rec.opts.MaxContent)}
		}
	}
	rec.chatEnd(&mc.p, mc.tools, finish, reasoning, text, mc.calls)
	s.span.grow(mc.p.start, mc.p.end)
	rec.emit(&mc.p)
	// The session keeps ended calls by id for late events; their text is
	// recorded and need not stay.
	mc.messages, mc.deltaText, mc.reasoning, mc.calls = boundedText{}, boundedText{}, boundedText{}, nil
}
