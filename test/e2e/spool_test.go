package e2e

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cursor-otel/cursor-otel/internal/filelock"
	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/proctest"
	"github.com/cursor-otel/cursor-otel/internal/spool"
)

// keptSpans is how many spans the spool in dir holds.
func keptSpans(t *testing.T, dir string) int {
	t.Helper()
	st, err := spool.Open(dir, 0).Stat()
	if err != nil {
		t.Fatal(err)
	}
	return st.Spans
}

// waitForDeliverers waits until no background delivery holds the spool,
// and none has for a few looks in a row (one started by the last run may
// not have taken the lock yet), or the deadline.
func waitForDeliverers(t *testing.T, dir string) {
	t.Helper()
	free := 0
	for deadline := time.Now().Add(30 * time.Second); free < 5 && time.Now().Before(deadline); {
		unlock, err := filelock.Lock(filepath.Join(dir, "deliver.lock"), false)
		switch {
		case err == nil:
			unlock()
			free++
		case errors.Is(err, fs.ErrNotExist):
			free++ // no spool: nothing was kept, so no deliverer runs
		default:
			free = 0
		}
		time.Sleep(50 * time.Millisecond) // polling the deliverers' lock
	}
}

// noSpanTwice fails the test for each span ID the receiver got twice.
func noSpanTwice(t *testing.T, spans []golden.Span) {
	t.Helper()
	seen := map[string]bool{}
	for _, s := range spans {
		if seen[s.SpanID] {
			t.Errorf("span %s (%s) arrived twice", s.SpanID, s.Name)
		}
		seen[s.SpanID] = true
	}
}

// sessions counts the session spans among spans, by trace.
func sessions(spans []golden.Span) map[string]int {
	out := map[string]int{}
	for _, s := range spans {
		if s.Name == "invoke_agent cursor-agent" {
			out[s.TraceID]++
		}
	}
	return out
}

// spoolRun is a wrapped run of the example into endpoint, keeping what the
// collector does not take in dir.
func spoolRun(t *testing.T, endpoint, dir string, more ...string) wrapped {
	t.Helper()
	env := append([]string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "CURSOR_OTEL_SPOOL=" + dir, "OTEL_METRICS_EXPORTER=none"}, more...)
	return runWrapped(t, wrapSpec{args: streamArgs(), env: env, endpoint: endpoint})
}

// keptRuns makes n wrapped runs with the collector down and returns the
// spool their sessions were kept in, once the deliverers they started
// have given up, and the collector's address.
func keptRuns(t *testing.T, n int) (dir, endpoint string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "spool")
	down := otlptest.Down(t)
	for range n {
		spoolRun(t, down, dir)
	}
	waitForDeliverers(t, dir)
	return dir, down
}

// comeBack starts a receiver where endpoint was down: the collector the
// kept sessions were going to, back. A port taken meanwhile skips the
// test.
func comeBack(t *testing.T, endpoint string) *otlptest.Receiver {
	t.Helper()
	recv, err := otlptest.ListenGRPC(strings.TrimPrefix(endpoint, "http://"), nil)
	if err != nil {
		t.Skipf("the collector's port was taken meanwhile: %v", err)
	}
	t.Cleanup(recv.Stop)
	return recv
}

// The example's session is 11 spans.
const exampleSpans = 11

// Five runs with the collector down, then it comes back: the sixth run
// delivers the five kept, and every session arrives whole, once; the
// spool is empty after.
func TestSpoolDeliversWhatWasKept(t *testing.T) {
	t.Parallel() // waits on the delivery's timers, not the CPU
	dir := filepath.Join(t.TempDir(), "spool")
	t.Cleanup(func() { waitForDeliverers(t, dir) })
	down := otlptest.Down(t)
	var delays []time.Duration
	for i := range 5 {
		w := spoolRun(t, down, dir)
		if w.exit != 0 || !strings.Contains(w.stderr, "kept in "+dir) {
			t.Fatalf("run %d, collector down: exit %d, stderr %q; want 0 and a line saying where the spans wait", i, w.exit, w.stderr)
		}
		delays = append(delays, w.took)
	}
	waitForDeliverers(t, dir)
	if n := keptSpans(t, dir); n != 5*exampleSpans {
		t.Fatalf("%d spans kept after 5 runs, want %d", n, 5*exampleSpans)
	}
	recv := comeBack(t, down)
	if w := spoolRun(t, down, dir); w.exit != 0 || w.stderr != "" {
		t.Fatalf("run with the collector back: exit %d, stderr %q", w.exit, w.stderr)
	}
	spans := waitForSpans(t, recv, 6*exampleSpans, 20*time.Second)
	noSpanTwice(t, spans)
	if got := sessions(spans); len(got) != 6 || len(spans) != 6*exampleSpans {
		t.Errorf("%d sessions, %d spans arrived; want 6 and %d", len(got), len(spans), 6*exampleSpans)
	}
	waitForDeliverers(t, dir)
	if n := keptSpans(t, dir); n != 0 {
		t.Errorf("%d spans still kept after delivery", n)
	}
	t.Logf("runs with the collector down took %v", delays)
}

// A collector that accepts and never answers, and one that answers
// Unavailable: the run ends within the flush timeout and keeps its spans;
// cursor-otel flush delivers them later and says how many went.
func TestSpoolKeepsWhatACollectorDidNotAnswer(t *testing.T) {
	for _, tt := range []struct {
		name string
		// collector gives its endpoint, and what brings it back.
		collector func(t *testing.T) (string, func() *otlptest.Receiver)
	}{
		{"hanging", func(t *testing.T) (string, func() *otlptest.Receiver) {
			endpoint, stop, err := otlptest.ListenHanging()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(stop)
			return endpoint, func() *otlptest.Receiver { stop(); return comeBack(t, endpoint) }
		}},
		{"unavailable", func(t *testing.T) (string, func() *otlptest.Receiver) {
			r := otlptest.StartGRPC(t)
			r.Refuse(status.Error(codes.Unavailable, "shutting down"))
			return r.Endpoint, func() *otlptest.Receiver { r.Refuse(nil); return r }
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "spool")
			t.Cleanup(func() { waitForDeliverers(t, dir) })
			endpoint, back := tt.collector(t)
			w := spoolRun(t, endpoint, dir, "CURSOR_OTEL_FLUSH_TIMEOUT=1s")
			if w.exit != 0 || !strings.Contains(w.stderr, "kept in") || w.took > 3*time.Second {
				t.Fatalf("exit %d after %v, stderr %q", w.exit, w.took, w.stderr)
			}
			if n := keptSpans(t, dir); n != exampleSpans {
				t.Fatalf("%d spans kept, want %d", n, exampleSpans)
			}
			// A collector that took the connection was handed the spans
			// (see TestSpoolLateCollectorGetsEachSpanOnce): its delivery
			// gives up first.
			waitForDeliverers(t, dir)
			recv := back()
			r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_SPOOL=" + dir}, nil, "flush")
			if r.exit != 0 || !strings.Contains(r.stdout, "delivered 1 session (11 spans) to "+recv.Endpoint) {
				t.Fatalf("flush: exit %d, stdout %q, stderr %q", r.exit, r.stdout, r.stderr)
			}
			if recv.SpanCount() != exampleSpans {
				t.Errorf("%d spans at the receiver, want %d", recv.SpanCount(), exampleSpans)
			}
			r = runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_SPOOL=" + dir}, nil, "flush")
			if r.exit != 0 || !strings.Contains(r.stdout, "nothing kept") || recv.SpanCount() != exampleSpans {
				t.Errorf("second flush: exit %d, %q; %d spans at the receiver", r.exit, r.stdout, recv.SpanCount())
			}
		})
	}
}

// Two deliverers at once never both send a session.
func TestSpoolTwoDeliverersSendEachSessionOnce(t *testing.T) {
	t.Parallel() // waits on the delivery's timers, not the CPU
	dir, endpoint := keptRuns(t, 4)
	recv := comeBack(t, endpoint)
	recv.SlowDown(200 * time.Millisecond) // so that the two overlap
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_SPOOL=" + dir}
	var wg sync.WaitGroup
	var outs [2]result
	for i := range outs {
		wg.Go(func() { outs[i] = runBinary(t, env, nil, "flush") })
	}
	wg.Wait()
	spans := golden.FromOTLP(recv.Spans())
	noSpanTwice(t, spans)
	if len(spans) != 4*exampleSpans {
		t.Errorf("%d spans arrived, want %d; flushes said %q and %q", len(spans), 4*exampleSpans, outs[0].stdout, outs[1].stdout)
	}
	if !strings.Contains(outs[0].stdout+outs[1].stdout, "another cursor-otel is delivering") {
		t.Logf("the two flushes did not overlap: %q, %q", outs[0].stdout, outs[1].stdout)
	}
}

// A deliverer killed mid-send leaves its session to be sent again: the
// next delivery sends everything, once.
func TestSpoolDelivererKilledMidSend(t *testing.T) {
	t.Parallel() // waits on the delivery's timers, not the CPU
	dir, endpoint := keptRuns(t, 3)
	hanging := otlptest.Hanging(t)
	cmd := exec.Command(binary, "flush", "--redirect") // to the hanging one

	cmd.Env = withBaseEnv(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + hanging, "CURSOR_OTEL_SPOOL=" + dir})
	proctest.Start(t, cmd, 30*time.Second)
	// Mid-send: it holds the lock, its first export unanswered.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		unlock, err := filelock.Lock(filepath.Join(dir, "deliver.lock"), false)
		if errors.Is(err, filelock.ErrLocked) {
			break
		}
		if err == nil {
			unlock()
		}
	}
	time.Sleep(200 * time.Millisecond) // let the export reach the hanging receiver, which shows nothing to poll
	proctest.KillTree(cmd.Process.Pid)
	_ = cmd.Wait()
	if n := keptSpans(t, dir); n != 3*exampleSpans {
		t.Fatalf("%d spans kept after the deliverer was killed, want all %d", n, 3*exampleSpans)
	}
	recv := comeBack(t, endpoint)
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_SPOOL=" + dir}, nil, "flush")
	spans := golden.FromOTLP(recv.Spans())
	noSpanTwice(t, spans)
	if r.exit != 0 || len(spans) != 3*exampleSpans {
		t.Errorf("flush after the kill: exit %d %q; %d spans arrived, want %d", r.exit, r.stdout, len(spans), 3*exampleSpans)
	}
}

// A long outage with large sessions: the spool stays within its bound,
// the oldest go first, and the delivery says how many.
func TestSpoolBoundInALongOutage(t *testing.T) {
	t.Parallel() // waits on the delivery's timers, not the CPU
	dir := filepath.Join(t.TempDir(), "spool")
	down := otlptest.Down(t)
	// With content capture a session weighs a few KiB: the bound is room
	// for three and a half.
	capture := "CURSOR_OTEL_CAPTURE_CONTENT=true"
	said := []string{spoolRun(t, down, dir, capture).stderr}
	waitForDeliverers(t, dir)
	one, _ := spool.Open(dir, 0).Stat()
	bound := one.Bytes * 7 / 2
	for range 5 {
		w := spoolRun(t, down, dir, capture, fmt.Sprintf("CURSOR_OTEL_SPOOL_MAX=%d", bound))
		said = append(said, w.stderr)
	}
	waitForDeliverers(t, dir)
	st, err := spool.Open(dir, 0).Stat()
	if err != nil || st.Bytes > bound || st.Sessions != 3 {
		t.Fatalf("spool after 6 runs of %d bytes each: %+v, %v; want within %d bytes, the 3 newest sessions", one.Bytes, st, err, bound)
	}
	if !strings.Contains(strings.Join(said, ""), "dropped to keep the spool within its bound") {
		t.Errorf("no run said it dropped sessions: %q", said)
	}
	recv := comeBack(t, down)
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_SPOOL=" + dir}, nil, "flush")
	if r.exit != 0 || !strings.Contains(r.stdout, "dropped earlier, oldest first") {
		t.Errorf("flush: exit %d, %q; want it to say how many were dropped", r.exit, r.stdout)
	}
	t.Logf("kept %d of 6 sessions, %d bytes; flush said %q", st.Sessions, st.Bytes, r.stdout)
}

// A collector that refuses the data as malformed: dropped with one line,
// not kept for ever.
func TestSpoolDropsWhatACollectorRejects(t *testing.T) {
	dir, endpoint := keptRuns(t, 1)
	recv := comeBack(t, endpoint)
	recv.Refuse(status.Error(codes.InvalidArgument, "span has no name"))
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_SPOOL=" + dir}, nil, "flush")
	if r.exit != 0 || strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stdout, "cursor-otel: 1 session refused by the collector as malformed (InvalidArgument: span has no name), dropped") {
		t.Errorf("flush: exit %d, stdout %q, stderr %q", r.exit, r.stdout, r.stderr)
	}
	if n := keptSpans(t, dir); n != 0 {
		t.Errorf("%d spans still kept", n)
	}
}

// What is kept is what would have been exported: private files, and no
// prompt text without content capture.
func TestSpoolIsPrivateAndHoldsNoPrompt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool")
	prompt := "refactor the payment module with key sk-proj-" + strings.Repeat("Ab3", 16)
	env := []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "CURSOR_OTEL_SPOOL=" + dir, "OTEL_METRICS_EXPORTER=none"}
	runWrapped(t, wrapSpec{args: streamArgs(prompt), env: env, endpoint: otlptest.Down(t)})
	waitForDeliverers(t, dir)
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("spool directory: %v, %v; want 0700", fi, err)
	}
	entries, _ := os.ReadDir(dir)
	parts := 0
	for _, e := range entries {
		info, _ := e.Info()
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v, want 0600", e.Name(), info.Mode().Perm())
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if strings.Contains(string(b), "payment module") || strings.Contains(string(b), "sk-proj-") {
			t.Errorf("%s holds the prompt", e.Name())
		}
		if strings.HasSuffix(e.Name(), ".otlp") {
			parts++
		}
	}
	if parts == 0 {
		t.Error("nothing kept")
	}
}

// Sessions kept for another collector go nowhere until the user acts: a
// run after which more of them wait says so, once, in one line naming
// cursor-otel flush; flush says for which address they wait.
func TestSpoolRunSaysWhenMoreWaitElsewhere(t *testing.T) {
	t.Parallel() // waits on the delivery's timers, not the CPU
	dir, down := keptRuns(t, 2)
	recv := otlptest.StartGRPC(t)
	first := spoolRun(t, recv.Endpoint, dir)
	want := "cursor-otel: 2 sessions wait for another collector (1 destination): cursor-otel flush --list\n"
	if first.stderr != want {
		t.Errorf("first run's stderr %q: want one line saying %q", first.stderr, want)
	}
	waitForDeliverers(t, dir)
	if again := spoolRun(t, recv.Endpoint, dir); strings.Contains(again.stderr, "wait for another collector") {
		t.Errorf("said again with no more waiting: %q", again.stderr)
	}
	waitForDeliverers(t, dir)
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_SPOOL=" + dir}, nil, "flush")
	if want := "2 sessions kept for " + down + " (grpc) wait for that collector"; r.exit != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("flush: exit %d, %q; want 0 and %q", r.exit, r.stdout, want)
	}
	noSpanTwice(t, golden.FromOTLP(recv.Spans()))
	if got := sessions(golden.FromOTLP(recv.Spans())); len(got) != 2 {
		t.Errorf("%d sessions at the collector set now, want its own 2 runs'", len(got))
	}
}
