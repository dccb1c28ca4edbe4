package spanmap

import (
	"context"
	"math/rand/v2"
	"slices"

	"go.opentelemetry.io/otel/trace"
)

// builder is what every source of turns records through: the options
// that shape what is recorded, the IDs of the spans it opens, and the one
// path by which a span reaches the SDK (emit). A Stream, Hooks
// and ACP each hold one; a source's reader knows only events.
type builder struct {
	shaper
	ctx    context.Context // the spans' context when they name no parent
	tracer trace.Tracer
	rng    *rand.Rand // the IDs of the spans under a turn's root
	maker  *spanMaker // nil: spans are made as they are emitted
}

func newBuilder(ctx context.Context, tracer trace.Tracer, opts Options) builder {
	return builder{shaper: newShaper(opts), ctx: ctx, tracer: tracer, rng: newRand()}
}

// child reserves the IDs of a span under parent.
func (b *builder) child(parent trace.SpanContext) trace.SpanContext { return childOf(b.rng, parent) }

// reserveRoot reserves the IDs of a turn's root under parent (invalid:
// under the builder's context): a span started and never ended gives
// them and the sampler's decision (a TRACEPARENT's, a ratio's), and the
// root is made with them as the turn ends. Invalid from a tracer that
// makes no spans.
func (b *builder) reserveRoot(parent trace.SpanContext, name string) trace.SpanContext {
	ctx := b.ctx
	if parent.IsValid() {
		ctx = trace.ContextWithSpanContext(context.Background(), parent)
	}
	return b.start(ctx, name, trace.WithSpanKind(trace.SpanKindClient)).SpanContext()
}

// emit makes the span p describes, with the IDs reserved for it, and
// ends it: now, or on the builder's span maker.
func (b *builder) emit(p *draft) {
	if !p.sc.IsValid() {
		return // a tracer that makes no spans (noop): the root got no IDs
	}
	s := taken(b.opts.CaptureContent, p)
	if b.maker != nil {
		// Its own attributes: the draft's may grow in place after this.
		s.attrs = slices.Clone(s.attrs)
		b.maker.spans <- s
		return
	}
	s.make(b.ctx, b)
}

// lastTurn is the root of the conversation's last turn as Options.Turns
// knows it, whichever source traced it; false when it knows none.
func (b *builder) lastTurn(conversation string) (trace.SpanContext, bool) {
	if b.opts.Turns == nil || conversation == "" {
		return trace.SpanContext{}, false
	}
	return b.opts.Turns.Last(conversation)
}

// setLastTurn makes root the conversation's last turn, for the next
// turn to link to, whichever source traces it.
func (b *builder) setLastTurn(conversation string, root trace.SpanContext) {
	if b.opts.Turns != nil && conversation != "" {
		b.opts.Turns.SetLast(conversation, root)
	}
}

// start is the one call in spanmap that starts a span in the SDK.
func (b *builder) start(ctx context.Context, name string, opts ...trace.SpanStartOption) trace.Span {
	_, span := b.tracer.Start(ctx, name, opts...)
	return span
}
