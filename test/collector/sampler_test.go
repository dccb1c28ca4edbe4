package collector

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/synth"
)

// A sampler killed (SIGKILL: a crash, the OOM killer) loses what it held
// undecided, the sessions that reached it within about
// DECISION_WAIT_AFTER_ROOT of the kill, and nothing else: what it had
// kept waits on disk for the trace store, and what was sent to it while
// it was down reaches it when it is back (the gateways retry). A sampler
// stopped (SIGTERM: a rolling restart) decides what it holds as it stops
// and loses nothing. Every session here failed, so each one lost shows.
func TestSamplerKilled(t *testing.T) {
	s := sampling{decisionWait: 5 * time.Second, afterRoot: time.Second, percent: 30, slow: 25 * time.Second}
	var runs []run
	for range 160 {
		runs = append(runs, replayRun("examples/failed-run.ndjson", true, false))
	}
	fl := fly(t, s, runs, fleetOptions{concurrency: 8, wholeOnEnd: true, restarts: []restart{
		{sampler: 0, at: 0.4, downFor: 3 * time.Second},
		{sampler: 1, at: 0.7, graceful: true, downFor: 3 * time.Second},
	}}, nil)
	killed := fl.fleet.restarts[0].stopped
	d := fl.tier.delivered()
	var lost []time.Duration
	for _, s := range fl.fleet.sessions {
		if !d.whole(s) {
			lost = append(lost, s.ended.Sub(killed).Round(100*time.Millisecond))
		}
	}
	slices.Sort(lost)
	t.Logf("the kill lost %d of %d sessions (ended, from the kill: %s); %d ended near it",
		len(lost), len(runs), lost, fl.verdict.atRisk)
}

// What a sampler holding sessions undecided costs in memory: sessions of
// 3,001 spans each (1,000 model calls, each with two tool calls), held
// for a minute after their session span, against the same sampler idle.
func TestSamplerMemory(t *testing.T) {
	store := otlptest.StartGRPC(t)
	grpcPort := freePort(t)
	c := newSampler(t, "sampler", grpcPort, store, map[string]string{
		"DECISION_WAIT":            "5m",
		"DECISION_WAIT_AFTER_ROOT": "1m",
		"SAMPLING_PERCENTAGE":      "100",
	})
	c.start(t)
	recording := filepath.Join(t.TempDir(), "long.ndjson")
	if err := os.WriteFile(recording, synth.Stream(1000), 0o644); err != nil {
		t.Fatal(err)
	}
	idle, _ := c.rss()
	const sessions = 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	spans := 0
	slots := make(chan struct{}, 4)
	for range sessions {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			s := run{kind: "replay long", args: []string{"replay", "--quiet", recording}}.start(t, "http://"+addr(grpcPort), "grpc", nil)
			mu.Lock()
			spans += len(s.spans)
			mu.Unlock()
		})
	}
	wg.Wait()
	held, _ := c.rss()
	if n := store.SpanCount(); n != 0 {
		t.Errorf("%d spans went on before the decision", n)
	}
	per := float64(held-idle) / float64(spans)
	t.Logf("sampler holding %d sessions, %d spans: RSS %d MiB, %d MiB idle: about %.0f bytes a span held", sessions, spans, held>>20, idle>>20, per)
	if per <= 0 {
		t.Errorf("holding %d spans cost no memory: are they held?", spans)
	}
}
