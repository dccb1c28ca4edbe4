package tracer

import (
	"context"
	"sync"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// maxWholeSpans bounds the spans held for one trace. A trace that grows
// past it is let through as its spans end, from then on: memory stays
// bounded, and the collector's decision_wait_after_root_received still
// decides on it when its root arrives.
const maxWholeSpans = 8192

// wholeTraces holds each trace's spans until its root (a span with no
// parent in this process) ends, then hands them all to next at once. A
// tail-sampling collector then sees a trace arrive whole, in one export or
// a few back to back, however long it ran: its decision_wait needs to
// cover an export, not a session.
type wholeTraces struct {
	next  sdktrace.SpanProcessor
	limit int
	// direct, when set, exports a trace whose root ends once ending says
	// the run is ending, instead of handing its spans to next, unless it
	// returns false: it would have to wait (its spans then go to next).
	direct func([]sdktrace.ReadOnlySpan) bool
	ending func() bool
	// journal, when set, records each trace whose root ends before it
	// goes on (see journal.go).
	journal *traceJournal

	mu       sync.Mutex
	held     map[trace.TraceID][]sdktrace.ReadOnlySpan
	overflow map[trace.TraceID]bool // traces past the limit, let through
}

func newWholeTraces(next sdktrace.SpanProcessor, limit int) *wholeTraces {
	return &wholeTraces{next: next, limit: limit,
		held: map[trace.TraceID][]sdktrace.ReadOnlySpan{}, overflow: map[trace.TraceID]bool{}}
}

func (w *wholeTraces) OnStart(ctx context.Context, s sdktrace.ReadWriteSpan) { w.next.OnStart(ctx, s) }

func (w *wholeTraces) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	id := s.SpanContext().TraceID()
	root := !s.Parent().IsValid() || s.Parent().IsRemote()
	w.mu.Lock()
	var out []sdktrace.ReadOnlySpan
	switch {
	case w.overflow[id]:
		out = []sdktrace.ReadOnlySpan{s}
		if root {
			delete(w.overflow, id)
		}
	case root:
		out = append(w.held[id], s)
		delete(w.held, id)
	case len(w.held[id]) >= w.limit:
		out = append(w.held[id], s)
		delete(w.held, id)
		w.overflow[id] = true
	default:
		w.held[id] = append(w.held[id], s)
	}
	w.mu.Unlock()
	if root && w.journal != nil && len(out) > 0 {
		w.journal.mu.RLock()
		defer w.journal.mu.RUnlock()
		w.journal.add(out)
	}
	if root && w.direct != nil && len(out) > 0 && w.ending() && w.direct(out) {
		return
	}
	for _, span := range out {
		w.next.OnEnd(span)
	}
}

// release hands on what is held of traces whose root never ended.
func (w *wholeTraces) release() {
	w.mu.Lock()
	held := w.held
	w.held = map[trace.TraceID][]sdktrace.ReadOnlySpan{}
	w.mu.Unlock()
	for _, spans := range held {
		for _, s := range spans {
			w.next.OnEnd(s)
		}
	}
}

func (w *wholeTraces) Shutdown(ctx context.Context) error {
	w.release()
	return w.next.Shutdown(ctx)
}

// ForceFlush exports what has ended; a trace still under way stays held.
func (w *wholeTraces) ForceFlush(ctx context.Context) error { return w.next.ForceFlush(ctx) }
