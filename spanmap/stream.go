// Package spanmap turns cursor-agent events into OpenTelemetry spans: one
// trace per session, a span per model call under it, a span per tool call
// under the model call that issued it, and a subagent's own steps under
// the task that ran it. It knows nothing of processes or exporters: it is
// given a tracer and events.
package spanmap

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/pricing"
	"github.com/cursor-otel/cursor-otel/parse"
)

// Options tune what a Stream records.
type Options struct {
	// CaptureContent records prompts, assistant text, thinking text, tool
	// arguments and results. Off, only metadata is recorded.
	CaptureContent bool
	// MaxContent bounds each captured value in bytes (DefaultMaxContent
	// when zero).
	MaxContent int
	// Redact is applied to every string taken from the stream before it is
	// recorded. Nil records strings as they are.
	Redact func(string) string
	// RedactJSON is applied in place of Redact to JSON values: a tool's
	// arguments and result. Nil uses Redact.
	RedactJSON func(string) string
	// Prices price each session's usage (pricing.Default() when nil).
	Prices *pricing.Table
	// MaxBudgetUSD, when above zero, marks a session whose estimated cost
	// is over it, or cannot be known, as budget_exceeded.
	MaxBudgetUSD float64
	// StallAfter, when above zero, is the longest gap without output from
	// the agent that is not a stall: each longer one is a cursor.stall
	// event on its session.
	StallAfter time.Duration
	// Shift is added to every time the stream gives, in replay: replay
	// --now moves a recording to the present, its durations and order kept.
	Shift time.Duration
	// Now gives the time of a stream that has none of its own, in replay.
	// Nil means time.Now.
	Now func() time.Time
	// MakeBeside, when above 0, makes the spans in the SDK on a goroutine
	// of the Stream's own, up to this many waiting, while the next
	// events are recorded: replay, where the span model and the SDK then
	// each have a core (15% of a replay's time). Finish waits for them.
	MakeBeside int
	// Turns, when set, knows each conversation's last turn traced on this
	// machine: a session that continues a conversation (a resumed chat)
	// links to its last turn, and becomes its last turn. Nil links none.
	Turns Turns
}

// Turns are the last turns of conversations, as their roots.
type Turns interface {
	Last(conversation string) (trace.SpanContext, bool)
	SetLast(conversation string, root trace.SpanContext)
}

// maxWaiting bounds the events held while no time is known yet: a replayed
// session's first lines (system/init, user) carry no timestamp, so they
// wait for the first line that does.
const maxWaiting = 256

// Stream records one stream of events as traces. Its tracer's provider
// must use IDGenerator: spans are made when they end, with the IDs their
// children already name.
type Stream struct {
	builder
	overBudget []string // why each session over the budget is
	sess       *session
}

// NewStream records into tracer. Session spans are children of the span
// in ctx, if any (a TRACEPARENT the caller extracted).
func NewStream(ctx context.Context, tracer trace.Tracer, opts Options) *Stream {
	r := &Stream{builder: newBuilder(ctx, tracer, opts)}
	if opts.MakeBeside > 0 {
		r.maker = startSpanMaker(ctx, &r.builder, opts.MakeBeside)
	}
	return r
}

// shaper is what every source (a Stream, Hooks, ACP) records
// with: the options, with their defaults, and the price table; its
// methods shape what is recorded (text bounded and redacted, a tool's
// attributes, output messages).
type shaper struct {
	opts   Options
	prices *pricing.Table
}

func newShaper(opts Options) shaper {
	if opts.MaxContent <= 0 {
		opts.MaxContent = DefaultMaxContent
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	prices := opts.Prices
	if prices == nil {
		prices = pricing.Default()
	}
	return shaper{opts: opts, prices: prices}
}

// Begin opens a session at t before any event has arrived, reading the
// stream live from then on, and returns a context holding the session's
// span context. A wrapper calls it as the agent starts, so that the
// session covers the agent's start-up and the agent's own environment can
// carry the session's trace context. sc is the span context the caller
// reserved before the Stream existed (tracer.Reserve): a wrapper starts
// the agent with it in TRACEPARENT first, and sets up the SDK while the
// agent runs. An invalid sc has the Stream make one.
func (r *Stream) Begin(sc trace.SpanContext, t time.Time, attrs ...attribute.KeyValue) context.Context {
	if r.sess == nil {
		r.sess = r.newSession(sc)
	}
	s := r.sess
	s.clock.live = true
	s.fixStart(t)
	s.activity = t // from the agent's start: a silent start-up is a stall too
	s.span.attrs = append(s.span.attrs, attrs...)
	return contextOf(r.ctx, s.span.sc)
}

// Record adds one event. readAt is when the event was read, for streams
// read live; zero in replay.
func (r *Stream) Record(ev parse.Event, readAt time.Time) {
	if _, ok := ev.(*parse.Init); ok && r.sess != nil && r.sess.sawInit {
		// A second session in the stream: the first ends where its own
		// events did, and the next has a clock of its own.
		live := r.sess.clock.live
		r.sess.finish(End{})
		r.sess = r.newSession(trace.SpanContext{})
		r.sess.clock.live = live
	}
	if r.sess == nil {
		r.sess = r.newSession(trace.SpanContext{})
	}
	r.sess.record(ev, readAt)
}

// End is how the stream ended, as the caller knows it.
type End struct {
	Time     time.Time // zero: the latest time in the session
	ExitCode *int      // the agent's exit status, when it ran live
	// StallTimeout, when set, says cursor-otel stopped the agent after
	// that long without output (--stall-timeout).
	StallTimeout time.Duration
	// StderrTail is the end of the agent's stderr, kept when the run failed.
	StderrTail string
	// UntracedBytes is how much of the agent's output was not read because
	// the tracer fell behind it (wrap mode).
	UntracedBytes int64
	Attributes    []attribute.KeyValue // more facts for the session span
	// Signals are the signals the run was sent (and passed on to the
	// agent), as events on the session span.
	Signals []Signal
	// Cancelled says the person interrupted the run (a SIGINT passed on
	// to the agent, or its exit status 130): the turn was cancelled, so
	// its open work is incomplete and nothing failed, as ACP's
	// session/cancel and a hook stop that says aborted.
	Cancelled bool
	// NoStream says the agent's output was not read (an interactive run, a
	// subcommand): then a missing result is no failure.
	NoStream bool
}

// Signal is a signal the run was sent.
type Signal struct {
	Name string // SIGINT, SIGTERM, …
	At   time.Time
}

// Finish ends the open session, closing every span still open, and
// returns once every span is made.
func (r *Stream) Finish(end End) {
	if r.sess != nil {
		r.sess.finish(end)
		r.sess = nil
	}
	if r.maker != nil {
		r.maker.stop()
		r.maker = nil // what is recorded after Finish is made as it is emitted
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earlier(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

// OverBudget says, for each session recorded so far that was over the
// budget (Options.MaxBudgetUSD), why.
func (r *Stream) OverBudget() []string { return r.overBudget }
