package tracer

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/cursor-otel/cursor-otel/internal/steplog"
)

// Back-off after a failed export: first this long, doubling up to maxBackOff.
const (
	minBackOff = time.Second
	maxBackOff = 16 * time.Second
)

// maxInFlight is how many exports may wait on the collector at once: the
// batch processor goes on batching while the collector answers.
const maxInFlight = 4

// guard stands between the batch processor and the OTLP exporter.
//
//   - It exports up to maxInFlight batches at once.
//   - It counts what was exported and keeps the first error, for Report,
//     instead of letting the SDK's global handler print it.
//   - When an export fails it holds the spans (up to holdLimit) and backs
//     off; batches that come meanwhile are held too, and all go with the
//     first export after the back-off, so a collector that restarts loses
//     nothing and one that is down is not asked for every batch.
//   - Once Shutdown has begun, the flush deadline bounds every export: the
//     processor's last drain runs on a context without one.
//   - What it cannot export (held past its limit, cut off at the flush
//     deadline, still held at the end) goes to keep, when there is one, to
//     be delivered by a later run.
type guard struct {
	next      sdktrace.SpanExporter
	now       func() time.Time
	batchSize int                           // the most spans one export may carry
	holdLimit int                           // the most spans held for a retry
	keep      func([]sdktrace.ReadOnlySpan) // nil: what is not exported is lost
	// handOver, once the shutdown began, may hand spans over to the
	// background delivery; it returns those to send here. inDoubt is told
	// when an export was cut off at the deadline unanswered.
	handOver func([]sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan
	inDoubt  func()
	// handInRun: handOver is asked before the shutdown began too (a
	// long-lived process hands each trace over as it ends).
	handInRun atomic.Bool
	// answered, when set, is told of each export the collector took.
	answered func(time.Time)

	slots    chan struct{} // one per export in flight
	inFlight flights
	ctx      context.Context // every export's; cancelled at the flush deadline
	cancel   context.CancelFunc

	mu          sync.Mutex
	exported    int
	unconfirmed int   // spans whose export was cut off at the flush deadline, unanswered
	err         error // the first export error
	held        []sdktrace.ReadOnlySpan
	heldInRun   bool // some held were handed over before the shutdown began
	downUntil   time.Time
	backOff     time.Duration
	shutdownAt  time.Time
}

func newGuard(next sdktrace.SpanExporter, batchSize, holdLimit int) *guard {
	ctx, cancel := context.WithCancel(context.Background())
	return &guard{next: next, now: time.Now, batchSize: batchSize, holdLimit: holdLimit,
		slots: make(chan struct{}, maxInFlight), ctx: ctx, cancel: cancel}
}

// ExportSpans hands the batch to an export of its own and returns; it
// waits only when maxInFlight exports are under way.
func (g *guard) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	g.offer(slices.Clone(spans), false) // the processor reuses its slice
	return nil
}

// exportNow is ExportSpans for a caller that must not wait: it does
// nothing and returns false when every export slot is taken or the flush
// deadline has passed. spans are the guard's from then on.
func (g *guard) exportNow(spans []sdktrace.ReadOnlySpan) bool {
	if g.ctx.Err() != nil {
		return false
	}
	select {
	case g.slots <- struct{}{}:
	default:
		return false
	}
	g.offer(spans, true)
	return true
}

// offer exports batch, or holds it, hands it over or keeps it; haveSlot
// says the caller took an export slot for it already.
func (g *guard) offer(batch []sdktrace.ReadOnlySpan, haveSlot bool) {
	release := func() {
		if haveSlot {
			<-g.slots
		}
	}
	g.mu.Lock()
	inRun := g.shutdownAt.IsZero()
	if g.now().Before(g.downUntil) {
		over := g.hold(batch, inRun)
		g.mu.Unlock()
		release()
		g.keepSpans(over)
		return
	}
	if len(g.held) > 0 {
		batch, g.held = append(g.held, batch...), nil
	}
	g.mu.Unlock()
	if (!inRun || g.handInRun.Load()) && g.handOver != nil {
		if batch = g.handOver(batch); len(batch) == 0 {
			release()
			return
		}
	}
	if !haveSlot {
		select {
		case g.slots <- struct{}{}:
		case <-g.ctx.Done():
			g.keepSpans(batch) // past the flush deadline: never sent
			return
		}
	}
	g.inFlight.start()
	go func() {
		defer func() { <-g.slots; g.inFlight.done() }()
		g.send(batch, inRun)
	}()
}

// send exports spans in batches of batchSize; what a failed export leaves
// is held for a retry after the back-off. inRun says the spans were handed
// over before the shutdown began.
func (g *guard) send(spans []sdktrace.ReadOnlySpan, inRun bool) {
	for len(spans) > 0 {
		n := min(len(spans), g.batchSize)
		err := g.export(spans[:n])
		g.mu.Lock()
		if err != nil && g.ctx.Err() != nil {
			// Cut off at the flush deadline: not the collector's error, and
			// the collector may have the batch; the rest was never sent.
			// Both are kept: a collector that does not answer has, as a
			// rule, not taken them.
			g.unconfirmed += n
			g.mu.Unlock()
			if g.inDoubt != nil {
				g.inDoubt() // the collector did not answer in time: the next run hands over
			}
			g.keepSpans(spans)
			return
		}
		if err != nil {
			if g.err == nil {
				g.err = err
			}
			g.backOff = min(max(minBackOff, 2*g.backOff), maxBackOff)
			g.downUntil = g.now().Add(g.backOff)
			over := g.hold(spans, inRun)
			g.mu.Unlock()
			g.keepSpans(over)
			return
		}
		g.exported += n
		g.backOff = 0
		g.mu.Unlock()
		if g.answered != nil {
			g.answered(time.Now())
		}
		spans = spans[n:]
	}
}

// export is one export. Its context is the guard's, cancelled at the
// flush deadline (the processor cancels the one it passes as soon as
// ExportSpans returns, and its last drain has no deadline).
func (g *guard) export(spans []sdktrace.ReadOnlySpan) error {
	steplog.Mark("trace export sent")
	defer steplog.Mark("trace export answered")
	return g.next.ExportSpans(g.ctx, spans)
}

// hold keeps spans for a retry, as many as holdLimit allows, and returns
// the rest, for keepSpans. g.mu is held.
func (g *guard) hold(spans []sdktrace.ReadOnlySpan, inRun bool) (over []sdktrace.ReadOnlySpan) {
	g.heldInRun = g.heldInRun || inRun
	room := max(0, g.holdLimit-len(g.held))
	n := min(room, len(spans))
	g.held = append(g.held, spans[:n]...)
	return spans[n:]
}

// keepSpans hands spans that will not be exported now to keep; without
// one they are lost, and Report counts them so.
func (g *guard) keepSpans(spans []sdktrace.ReadOnlySpan) {
	if len(spans) > 0 && g.keep != nil {
		g.keep(spans)
	}
}

// keepHeld hands what is still held to keep, at the end.
func (g *guard) keepHeld() {
	g.mu.Lock()
	held := g.held
	g.held = nil
	g.mu.Unlock()
	g.keepSpans(held)
}

// Shutdown waits for the exports under way, then, if spans handed over
// before the shutdown began were held (a collector that was down during
// the run may be back), tries them once more; the deadline bounds it all.
func (g *guard) Shutdown(ctx context.Context) error {
	defer g.cancel()
	select {
	case <-g.inFlight.none():
	case <-ctx.Done():
		// Cut the exports off before the exporter's shutdown does: what it
		// cancels must read as cut off at the deadline, not as the
		// collector's error. The timer that does so may not have fired yet.
		g.cancel()
		g.keepHeld()
		return g.next.Shutdown(ctx)
	}
	g.mu.Lock()
	var retry []sdktrace.ReadOnlySpan
	if len(g.held) > 0 && g.heldInRun {
		retry, g.held = g.held, nil
	}
	g.mu.Unlock()
	if retry != nil && g.handOver != nil {
		retry = g.handOver(retry)
	}
	if len(retry) > 0 {
		g.send(retry, false)
	}
	g.keepHeld()
	return g.next.Shutdown(ctx)
}

// beginShutdown marks the start of the flush; when flush is done (its
// deadline passed) every export, the ones under way too, is cut off.
func (g *guard) beginShutdown(flush context.Context) {
	g.mu.Lock()
	g.shutdownAt = g.now()
	g.mu.Unlock()
	context.AfterFunc(flush, g.cancel)
}

// settle cuts off the exports under way, and waits at most d for them to
// return, so that result counts them as sent, not as never sent.
func (g *guard) settle(d time.Duration) {
	g.cancel()
	select {
	case <-g.inFlight.none():
	case <-time.After(d):
	}
}

func (g *guard) result() (exported, unconfirmed int, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.exported, g.unconfirmed, g.err
}
