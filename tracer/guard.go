package tracer

import (
	"context"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// coolOff is how long exports are skipped after one failed: a collector
// that is down is not asked again for every batch, and exit is not held up
// by it. After it, exports are tried again.
const coolOff = 30 * time.Second

// guard wraps an exporter so that failures are counted and reported by
// Report instead of printed by the SDK's global error handler, and so that
// no export outlives the flush deadline.
type guard struct {
	next sdktrace.SpanExporter
	now  func() time.Time

	mu        sync.Mutex
	exported  int
	err       error // the first export error
	downUntil time.Time
	deadline  time.Time
}

func (g *guard) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	g.mu.Lock()
	down := g.now().Before(g.downUntil)
	deadline := g.deadline
	g.mu.Unlock()
	if down {
		return nil // counted as lost by the provider: ended, never exported
	}
	if !deadline.IsZero() {
		// The batch processor's last drain runs on a background context;
		// this is what bounds it.
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	err := g.next.ExportSpans(ctx, spans)

	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil {
		if g.err == nil {
			g.err = err
		}
		g.downUntil = g.now().Add(coolOff)
		return nil
	}
	g.exported += len(spans)
	return nil
}

func (g *guard) Shutdown(ctx context.Context) error {
	return g.next.Shutdown(ctx)
}

func (g *guard) setDeadline(t time.Time) {
	g.mu.Lock()
	g.deadline = t
	g.mu.Unlock()
}

func (g *guard) result() (exported int, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.exported, g.err
}
