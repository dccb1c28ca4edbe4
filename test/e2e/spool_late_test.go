package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// A collector that answers after the flush timeout (1.5 s against 1 s)
// gets each span once: three runs one after another, then a flush, and
// every session arrives, none twice.
func TestSpoolLateCollectorGetsEachSpanOnce(t *testing.T) {
	t.Parallel() // its own spool, receivers and reports: it shares nothing with another test
	dir := filepath.Join(t.TempDir(), "spool")
	t.Cleanup(func() { waitForDeliverers(t, dir) })
	recv := otlptest.StartGRPC(t)
	recv.SlowDown(1500 * time.Millisecond)
	late := []string{"CURSOR_OTEL_FLUSH_TIMEOUT=1s", "OTEL_EXPORTER_OTLP_TIMEOUT=5000"}
	var said []string
	for range 3 {
		w := spoolRun(t, recv.Endpoint, dir, late...)
		if w.exit != 0 || w.took > 3*time.Second {
			t.Errorf("run: exit %d after %v; want 0, within the flush timeout", w.exit, w.took)
		}
		said = append(said, w.stderr)
		waitForDeliverers(t, dir)
	}
	r := runBinary(t, append([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_SPOOL=" + dir}, late...), nil, "flush")
	waitForDeliverers(t, dir)
	spans := golden.FromOTLP(recv.Spans())
	distinct := map[string]bool{}
	for _, s := range spans {
		distinct[s.SpanID] = true
	}
	t.Logf("runs said %q; flush said %q; %d spans at the collector, %d distinct", said, r.stdout, len(spans), len(distinct))
	noSpanTwice(t, spans)
	if len(distinct) != 3*exampleSpans {
		t.Errorf("%d distinct spans arrived, want the 3 sessions' %d", len(distinct), 3*exampleSpans)
	}
	if n := keptSpans(t, dir); n != 0 {
		t.Errorf("%d spans still kept", n)
	}
	for _, s := range said {
		if strings.Contains(s, "may have arrived") {
			t.Errorf("a run said %q: a late answer is waited for, not guessed at", s)
		}
	}
}
