package tracer

import (
	"context"
	"sync"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/cursor-otel/cursor-otel/internal/spool"
)

// A long-lived process (an editor's ACP session) exports its traces in
// batches, seconds apart (ExportBatch), and journals each as its root
// ends (spool.Journal): killed between two exports, it leaves its
// finished traces where the next run's delivery, or flush, sends them.

// traceJournal appends each whole trace to the journal, encoded once as
// the spool keeps it.
type traceJournal struct {
	j     *spool.Journal
	batch int // the most spans a record holds (an export's)

	// mu is held (read) from a trace's record to its hand-off to the
	// batch processor, and (write) to cut a segment: a segment cut holds
	// only traces the batch processor has, which the next flush exports.
	mu  sync.RWMutex
	enc wireEncoder // under encMu
	// encMu: traces end on more than one goroutine.
	encMu sync.Mutex
}

// add journals one trace's spans (sampled, as exported).
func (t *traceJournal) add(spans []sdktrace.ReadOnlySpan) {
	t.encMu.Lock()
	defer t.encMu.Unlock()
	for len(spans) > 0 {
		n := min(len(spans), t.batch)
		// A failed write leaves the trace in memory only, as before the
		// journal: it is exported with the next batch.
		_ = t.j.Append(spans[0].SpanContext().TraceID(), n, t.enc.request(spans[:n]))
		spans = spans[n:]
	}
}

// journalFor starts the journal of a long-lived process, when its spans
// go over OTLP and the spool keeps what the collector does not take.
func (p *Provider) journalFor(batch int) *traceJournal {
	if p.spool == nil {
		return nil
	}
	j, err := p.spool.OpenJournal(p.destination())
	if err != nil {
		return nil // nothing journaled: a kill loses what was not exported yet
	}
	return &traceJournal{j: j, batch: batch}
}

// ExportBatch exports what has ended, waits (at most the flush timeout)
// for the collector's answer, and then, when all of it was exported or
// kept, removes it from the journal.
func (p *Provider) ExportBatch(ctx context.Context) error {
	var cut spool.Segment
	if t := p.journal; t != nil {
		t.mu.Lock()
		cut = t.j.Cut()
		t.mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(ctx, p.flushTimeout)
	defer cancel()
	err := p.tp.ForceFlush(ctx)
	if p.journal != nil && len(cut) > 0 && err == nil && p.guard.settled(ctx) {
		p.journal.j.Remove(cut)
	}
	return err
}

// closeJournal removes the journal: at the end every span was exported,
// or kept.
func (p *Provider) closeJournal() {
	if p.journal != nil {
		p.journal.j.Close()
	}
}

// settled waits for the exports under way, at most until ctx ends, and
// says whether every span handed to the guard so far was exported, kept
// or handed over: none is held for a retry.
func (g *guard) settled(ctx context.Context) bool {
	select {
	case <-g.inFlight.none():
	case <-ctx.Done():
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.held) == 0
}
