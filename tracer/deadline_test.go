package tracer

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// waitingProvider is a provider to endpoint with a 300 ms flush timeout
// and exports of 50 spans, whose flush waits while the collector answers
// when waits is set; said collects what it is told while it waits.
func waitingProvider(t *testing.T, endpoint string, waits bool) (p *Provider, said func() []Waiting) {
	t.Helper()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
	t.Setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "50")
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	var mu sync.Mutex
	var told []Waiting
	p, err := New(context.Background(), Config{FlushTimeout: 300 * time.Millisecond, WaitWhileAnswered: waits,
		Waiting: func(w Waiting) { mu.Lock(); told = append(told, w); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	return p, func() []Waiting { mu.Lock(); defer mu.Unlock(); return append([]Waiting(nil), told...) }
}

// A collector that takes 100 ms to answer each export of 50 spans takes
// 2,000 spans in about a second, three times the flush timeout. A flush
// that waits while it answers gets them all to it, and says what it waits
// for once past the flush timeout; one that does not gives up at the
// flush timeout, as a wrapped run must.
func TestFlushWaitsWhileTheCollectorAnswers(t *testing.T) {
	for _, waits := range []bool{true, false} {
		recv := otlptest.StartGRPC(t)
		recv.SlowDown(100 * time.Millisecond)
		p, said := waitingProvider(t, recv.Endpoint, waits)
		endSpans(p, 2000)
		start := time.Now()
		r := p.Shutdown(context.Background())
		took := time.Since(start)
		if !waits {
			if r.Lost() == 0 || took > 600*time.Millisecond || len(said()) != 0 {
				t.Errorf("not waiting: %d of %d lost after %v, told %v; want some lost within about the 300ms flush timeout, nothing told", r.Lost(), r.Spans, took, said())
			}
			continue
		}
		if r.Exported != 2000 || r.Err != nil || r.Warning() != "" {
			t.Errorf("waiting: report %+v (warning %q); want all 2,000 exported", r, r.Warning())
		}
		if got := recv.SpanCount(); got != 2000 {
			t.Errorf("waiting: the collector has %d spans, want 2,000", got)
		}
		if took < 600*time.Millisecond {
			t.Errorf("waiting: the flush took %v: the collector was not slower than the flush timeout, the test holds nothing", took)
		}
		told := said()
		if len(told) == 0 {
			t.Fatalf("waiting %v past the flush timeout, nothing told", took)
		}
		if w := told[0]; w.Spans != 2000 || w.Taken <= 0 || w.Taken >= 2000 || w.SinceAnswer <= 0 || w.SinceAnswer > 300*time.Millisecond || w.Endpoint != recv.Endpoint {
			t.Errorf("told %+v; want some of the 2,000 spans taken, an answer within the flush timeout, the endpoint", w)
		}
	}
}

// A collector that answers 20 exports and then none: a flush that waits
// while answered gives up the flush timeout after the last answer (not
// before it, not much after), and says what one that counts from the
// run's end says: what was not sent, and what no answer came for.
func TestFlushGivesUpOnACollectorThatStopsAnswering(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	recv.SlowDown(50 * time.Millisecond)
	recv.StallAfter(20)
	p, _ := waitingProvider(t, recv.Endpoint, true)
	endSpans(p, 2000)
	r := p.Shutdown(context.Background())
	gap := time.Since(p.flush.lastAnswer())
	if gap < 250*time.Millisecond || gap > 700*time.Millisecond {
		t.Errorf("the flush ended %v after the last answer; want the 300ms flush timeout (less what exit takes)", gap)
	}
	if r.Exported != 1000 || r.Unconfirmed == 0 || !strings.Contains(r.Warning(), "spans not exported, no answer within the 300ms flush timeout for") {
		t.Errorf("report %+v, warning %q; want the 1,000 answered exported, the rest unanswered or unsent, and said so", r, r.Warning())
	}
	if got := recv.SpanCount(); got != 1000 {
		t.Errorf("the collector has %d spans, want the 1,000 it answered for", got)
	}
}
