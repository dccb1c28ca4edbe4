package collector

import (
	"encoding/hex"
	"fmt"
	"maps"
	"math"
	"strings"
	"testing"
	"time"
)

// delivered is what the trace stores hold: for each trace, the spans
// (id: name) and the stores that got them; and every span id seen twice.
type delivered struct {
	traces  map[string]map[string]string
	stores  map[string]map[int]bool
	doubles []string
}

func (tr *tier) delivered() delivered {
	d := delivered{traces: map[string]map[string]string{}, stores: map[string]map[int]bool{}}
	for i, store := range tr.stores {
		for _, rs := range store.Spans() {
			for _, ss := range rs.GetScopeSpans() {
				for _, sp := range ss.GetSpans() {
					trace, span := hex.EncodeToString(sp.GetTraceId()), hex.EncodeToString(sp.GetSpanId())
					if d.traces[trace] == nil {
						d.traces[trace], d.stores[trace] = map[string]string{}, map[int]bool{}
					}
					if _, twice := d.traces[trace][span]; twice {
						d.doubles = append(d.doubles, trace+"/"+span+" "+sp.GetName())
					}
					d.traces[trace][span] = sp.GetName()
					d.stores[trace][i] = true
				}
			}
		}
	}
	return d
}

// atRisk says whether a sampler restart could have lost some of s: a
// sampler was killed while it may have held s's spans undecided, from the
// session's first export to its decision. A sampler stopped gracefully
// decides what it holds as it stops: that loses nothing of a session
// whose spans all came at its end.
func (f *fleet) atRisk(s *session, afterRoot time.Duration) bool {
	from := s.started
	if f.wholeOnEnd && !s.replay() {
		// A wrapped session exports when the agent ends. A replay's whole
		// life is its export: one held up by a gateway waiting on the
		// killed sampler (5 s, seen here on a loaded machine) began at
		// the replay's start, not at its end.
		from = s.ended
	}
	const slack = 2 * time.Second
	for _, r := range f.restarts {
		if r.graceful && f.wholeOnEnd {
			continue
		}
		if !r.stopped.Before(from.Add(-slack)) && !r.stopped.After(s.ended.Add(afterRoot+slack)) {
			return true
		}
	}
	return false
}

// replay says s is a cursor-otel replay, not a wrapped run.
func (s *session) replay() bool { return strings.HasPrefix(s.kind, "replay ") }

// must says the samplers have to keep s: it failed or was slow.
func (s *session) must() bool { return s.fails || s.slow }

// whole says the store holds exactly the spans s exported.
func (d delivered) whole(s *session) bool {
	return maps.Equal(d.traces[s.traceID], s.spans)
}

// settle waits until every session the samplers have to keep has
// arrived whole (those a restart may have lost aside) and nothing more
// has arrived for quiet, or until limit.
func (tr *tier) settle(t *testing.T, f *fleet, quiet, limit time.Duration) {
	t.Helper()
	end := time.Now().Add(limit)
	last, lastChange := -1, time.Now()
	for time.Now().Before(end) {
		if n := tr.spanCount(); n != last {
			last, lastChange = n, time.Now()
		}
		d := tr.delivered()
		missing := 0
		for _, s := range f.sessions {
			if s.must() && !f.atRisk(s, tr.sampling.afterRoot) && !d.whole(s) {
				missing++
			}
		}
		if missing == 0 && time.Since(lastChange) >= quiet {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// verdict is the count of what arrived.
type verdict struct {
	sessions, must, mustWhole  int
	rest, restKept             int // successful sessions, not slow, a restart aside
	atRisk, mustLost, restLost int
	longestWhole               time.Duration
}

// judge checks what the stores hold against what the runs exported.
func judge(t *testing.T, tr *tier, f *fleet) verdict {
	t.Helper()
	d := tr.delivered()
	var v verdict
	for _, dbl := range d.doubles {
		t.Errorf("span arrived twice: %s", dbl)
	}
	byTrace := map[string]*session{}
	for _, s := range f.sessions {
		byTrace[s.traceID] = s
	}
	for trace, spans := range d.traces {
		s, ok := byTrace[trace]
		if !ok {
			t.Errorf("trace %s arrived, of no session run", trace)
			continue
		}
		if len(d.stores[trace]) > 1 {
			t.Errorf("%s: trace %s reached both samplers' stores: not routed by trace id", s.kind, trace)
		}
		if _, ok := spans[s.sessionSpan]; !ok && !f.atRisk(s, tr.sampling.afterRoot) {
			t.Errorf("%s: trace %s arrived without its session span (%d of %d spans)", s.kind, trace, len(spans), len(s.spans))
		}
	}
	for _, s := range f.sessions {
		v.sessions++
		risk := f.atRisk(s, tr.sampling.afterRoot)
		if risk {
			v.atRisk++
		}
		got, kept := d.traces[s.traceID]
		whole := d.whole(s)
		if whole {
			v.longestWhole = max(v.longestWhole, s.ended.Sub(s.started))
		}
		switch {
		case s.must():
			v.must++
			switch {
			case whole:
				v.mustWhole++
			case risk:
				v.mustLost++
			default:
				t.Errorf("%s (%s, trace %s) must be kept: %d of its %d spans arrived", s.kind, s.ended.Sub(s.started).Round(time.Millisecond), s.traceID, len(got), len(s.spans))
			}
		case risk:
			if kept && !whole {
				v.restLost++
			}
		default:
			v.rest++
			if kept {
				v.restKept++
				if !whole {
					t.Errorf("%s (trace %s) kept, but %d of its %d spans arrived", s.kind, s.traceID, len(got), len(s.spans))
				}
			}
		}
	}
	p := float64(tr.sampling.percent) / 100
	if lo, hi := binomialTails(v.rest, v.restKept, p); math.Min(lo, hi) < 1e-4 {
		t.Errorf("kept %d of %d successful sessions, want about %.0f%%: as far from it as that happens with a chance of %.1g", v.restKept, v.rest, p*100, 2*math.Min(lo, hi))
	}
	return v
}

// binomialTails are P(X ≤ k) and P(X ≥ k) for X of the binomial
// distribution of n trials of chance p.
func binomialTails(n, k int, p float64) (lo, hi float64) {
	for i := 0; i <= n; i++ {
		lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
		pmf := math.Exp(lg(n) - lg(i) - lg(n-i) + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
		if i <= k {
			lo += pmf
		}
		if i >= k {
			hi += pmf
		}
	}
	return lo, hi
}

func (v verdict) String() string {
	return fmt.Sprintf("%d sessions: %d failed or slow, %d of them whole; %d kept of %d others (%.0f%%); restart: %d at risk, %d failed or slow lost, %d others lost; longest kept whole %s",
		v.sessions, v.must, v.mustWhole, v.restKept, v.rest, 100*float64(v.restKept)/max(1, float64(v.rest)), v.atRisk, v.mustLost, v.restLost, v.longestWhole.Round(100*time.Millisecond))
}
