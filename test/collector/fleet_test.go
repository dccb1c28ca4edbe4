package collector

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// recordedLength is how long a recording's session ran, by its times.
func recordedLength(t *testing.T, recording string) time.Duration {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, recording))
	if err != nil {
		t.Fatal(err)
	}
	var lo, hi int64
	for _, m := range regexp.MustCompile(`"(?:timestamp_ms|startedAtMs|completedAtMs)":\s*"?(\d+)`).FindAllSubmatch(b, -1) {
		ms, _ := strconv.ParseInt(string(m[1]), 10, 64)
		if lo == 0 || ms < lo {
			lo = ms
		}
		hi = max(hi, ms)
	}
	if hi <= lo {
		t.Fatalf("%s: no times", recording)
	}
	return time.Duration(hi-lo) * time.Millisecond
}

// fleet is what a fleet of runs did.
type fleet struct {
	sessions     []*session
	began, ended time.Time
	restarts     []restart
	wholeOnEnd   bool // cursor-otel sends a session's spans when it ends
}

// restart is a sampler stopped and started again during the fleet.
type restart struct {
	sampler  int
	at       float64 // when this share of the runs has ended
	graceful bool    // SIGTERM, else SIGKILL
	downFor  time.Duration

	stopped, restored time.Time
}

func (r restart) String() string {
	how := "killed (SIGKILL)"
	if r.graceful {
		how = "stopped (SIGTERM)"
	}
	return fmt.Sprintf("sampler-%d %s after %.0f%% of the runs, back %s later", r.sampler+1, how, 100*r.at, r.restored.Sub(r.stopped).Round(100*time.Millisecond))
}

// fleetOptions say how to run the fleet.
type fleetOptions struct {
	concurrency int
	env         []string // more environment for every run
	restarts    []restart
	wholeOnEnd  bool
}

// runFleet runs every run through the tier, concurrency at a time, in an
// order shuffled with a fixed seed: half through each gateway, half of
// those over gRPC and half over HTTP. Samplers restart on the way as
// o.restarts say.
func runFleet(t *testing.T, tr *tier, runs []run, o fleetOptions) *fleet {
	t.Helper()
	order := slices.Clone(runs)
	rand.New(rand.NewPCG(28, 28)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	f := &fleet{began: time.Now(), wholeOnEnd: o.wholeOnEnd, sessions: make([]*session, len(order)), restarts: slices.Clone(o.restarts)}
	var (
		wg, restarting sync.WaitGroup
		mu             sync.Mutex
		done           int
	)
	slots := make(chan struct{}, o.concurrency)
	for i, r := range order {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			protocol := "grpc"
			if (i/2)%2 == 1 {
				protocol = "http/protobuf"
			}
			s := r.start(t, tr.endpoint(i%2, protocol), protocol, o.env)
			mu.Lock()
			defer mu.Unlock()
			f.sessions[i] = s
			done++
			for j := range f.restarts {
				rs := &f.restarts[j]
				if !rs.stopped.IsZero() || float64(done) < rs.at*float64(len(order)) {
					continue
				}
				rs.stopped = time.Now()
				restarting.Add(1)
				go func() {
					defer restarting.Done()
					c := tr.samplers[rs.sampler]
					if rs.graceful {
						c.stop(t)
					} else {
						c.kill(t)
					}
					time.Sleep(rs.downFor)
					c.start(t)
					mu.Lock()
					rs.restored = time.Now()
					mu.Unlock()
				}()
			}
		}()
	}
	wg.Wait()
	restarting.Wait()
	f.ended = time.Now()
	return f
}

// standardFleet is the mix of runs the tier is tested with: wrapped runs
// of about 2 s and of longLength (longer than the samplers' decision_wait)
// and replays, failing and succeeding, and replays of a session longer
// than the slow threshold.
func standardFleet(t *testing.T, longLength time.Duration) []run {
	t.Helper()
	const fix, parallel, failed = "examples/fix-failing-test.ndjson", "examples/parallel-tools.ndjson", "examples/failed-run.ndjson"
	fixLen, parallelLen := recordedLength(t, fix), recordedLength(t, parallel)
	return mix(
		share{24, wrappedRun(fix, fixLen, longLength, false)},
		share{8, wrappedRun(fix, fixLen, longLength, true)},
		share{30, wrappedRun(parallel, parallelLen, 2*time.Second, false)},
		share{10, wrappedRun(parallel, parallelLen, 2*time.Second, true)},
		share{24, replayRun(parallel, false, false)},
		share{6, replayRun(failed, true, false)},
		share{6, replayRun(fix, false, true)},
	)
}

// liveFleet is a smaller mix, most of it sessions of longLength whose
// spans, exported as they end, reach the samplers over that long.
func liveFleet(t *testing.T, longLength time.Duration) []run {
	t.Helper()
	const fix, parallel = "examples/fix-failing-test.ndjson", "examples/parallel-tools.ndjson"
	fixLen, parallelLen := recordedLength(t, fix), recordedLength(t, parallel)
	return mix(
		share{18, wrappedRun(fix, fixLen, longLength, false)},
		share{8, wrappedRun(fix, fixLen, longLength, true)},
		share{10, wrappedRun(parallel, parallelLen, 2*time.Second, false)},
		share{4, wrappedRun(parallel, parallelLen, 2*time.Second, true)},
	)
}

// share is n runs alike in a fleet.
type share struct {
	n int
	r run
}

// mix is a fleet of the shares' runs, in order.
func mix(shares ...share) []run {
	var runs []run
	for _, s := range shares {
		for range s.n {
			runs = append(runs, s.r)
		}
	}
	return runs
}
