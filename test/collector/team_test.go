package collector

import (
	"testing"
	"time"
)

// flight is a fleet flown through a tier of its own, and the verdict on
// what arrived.
type flight struct {
	tier    *tier
	fleet   *fleet
	verdict verdict
}

// fly starts a tier sampling as s, runs the fleet through it, waits for
// what it keeps to settle, judges it and says what happened. before runs
// once the tier is up.
func fly(t *testing.T, s sampling, runs []run, o fleetOptions, before func(*tier)) flight {
	t.Helper()
	tr := startTier(t, s)
	if before != nil {
		before(tr)
	}
	idle, _ := tr.samplers[0].rss()
	most := tr.watchRSS(t)
	f := runFleet(t, tr, runs, o)
	tr.settle(t, f, s.afterRoot+5*time.Second, s.decisionWait+90*time.Second)
	v := judge(t, tr, f)
	t.Logf("fleet: %d runs, %d at a time, %s (sampler decision_wait %s, after the session span %s); %s",
		len(runs), o.concurrency, f.ended.Sub(f.began).Round(time.Second), s.decisionWait, s.afterRoot, f.restarts)
	t.Logf("%s", v)
	t.Logf("sampler RSS: %d MiB idle, %d MiB at most during the fleet", idle>>20, most()>>20)
	return flight{tr, f, v}
}

// A fleet of cursor-otel runs as they are by default (each session's
// spans sent when it ends), through two gateways and two samplers as
// shipped, sessions longer than the samplers' decision_wait among them,
// a sampler killed and another stopped on the way: every failed or slow
// session arrives whole, none without its session span, no span twice,
// the configured share of the others is kept, the graceful stop loses
// nothing, and Prometheus gets the span metrics and cursor-otel's own
// metrics that every query of the Grafana dashboard needs.
func TestTeamTier(t *testing.T) {
	s := sampling{decisionWait: 5 * time.Second, afterRoot: time.Second, percent: 30, slow: 25 * time.Second}
	var prom *prometheus
	fl := fly(t, s, standardFleet(t, 12*time.Second), fleetOptions{concurrency: 12, wholeOnEnd: true, restarts: []restart{
		{sampler: 0, at: 0.35, downFor: 3 * time.Second},
		{sampler: 1, at: 0.7, graceful: true, downFor: 3 * time.Second},
	}}, func(tr *tier) { prom = startPrometheus(t, tr) })
	if fl.verdict.longestWhole <= s.decisionWait {
		t.Errorf("no session longer than decision_wait (%s) arrived whole", s.decisionWait)
	}

	for _, q := range dashboardQueries(t) {
		out, err := prom.await(q, time.Minute)
		if err != nil || len(out) == 0 {
			t.Errorf("dashboard query returns no data: %s (%v)", q, err)
		}
	}
	out, err := prom.await(`sum by (status_code) (traces_span_metrics_calls_total{span_name="invoke_agent cursor-agent"})`, time.Minute)
	if err != nil || len(out) != 2 {
		t.Errorf("span metrics of the sessions, by status: %+v (%v); want failed and not", out, err)
	}
}

// Runs that export each span as it ends (--live-spans, or a cursor-otel
// from before sessions were sent whole) are judged whole too, as long as
// the samplers' decision_wait covers a session: a trace is decided soon
// after its session span arrives, not decision_wait after its first span.
func TestTeamTierLiveSpans(t *testing.T) {
	s := sampling{decisionWait: 30 * time.Second, afterRoot: time.Second, percent: 30, slow: 25 * time.Second}
	fl := fly(t, s, liveFleet(t, 12*time.Second), fleetOptions{concurrency: 12, env: []string{"CURSOR_OTEL_LIVE_SPANS=true"}}, nil)
	if fl.verdict.longestWhole < 10*time.Second {
		t.Errorf("no session of 12 s arrived whole")
	}
}
