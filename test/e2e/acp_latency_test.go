package e2e

import (
	"slices"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// TestACPAddedLatency times prompt round trips (a request to the agent,
// its answer back: two messages) from an editor-like client, through
// cursor-otel and to the stand-in agent run directly, in alternating
// batches so that both see the same machine. What cursor-otel adds must
// stay within a few milliseconds a message.
func TestACPAddedLatency(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeACP}
	through := startEditor(t, binary, env, "acp")
	direct := startEditor(t, fakeACP, env, "acp")
	sids := []string{through.newSession(), direct.newSession()}
	var times [2][]time.Duration
	for range 20 {
		for i, e := range []*editor{through, direct} {
			for range 25 {
				began := time.Now()
				if a := e.prompt(sids[i], "echo", nil); a.eof || a.Error != nil {
					t.Fatalf("echo: %+v", a)
				}
				times[i] = append(times[i], time.Since(began))
			}
		}
	}
	through.close()
	direct.close()
	q := func(d []time.Duration, p float64) time.Duration {
		s := slices.Clone(d)
		slices.Sort(s)
		return s[int(p*float64(len(s)-1))]
	}
	t.Logf("round trip (2 messages), %d each: through cursor-otel p50 %v p99 %v; direct p50 %v p99 %v; added p50 %v p99 %v",
		len(times[0]), q(times[0], .5), q(times[0], .99), q(times[1], .5), q(times[1], .99),
		q(times[0], .5)-q(times[1], .5), q(times[0], .99)-q(times[1], .99))
	if added := q(times[0], .5) - q(times[1], .5); added > 4*time.Millisecond {
		t.Errorf("cursor-otel adds %v to a round trip (p50); want at most a few milliseconds", added)
	}
}
