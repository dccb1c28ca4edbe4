package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
)

// stalls are the session's cursor.stall events: in flight, and how long.
func stalls(s golden.Span) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, e := range s.Events {
		if e.Name != "cursor.stall" {
			continue
		}
		var what string
		var d time.Duration
		for _, kv := range e.Attributes {
			switch kv.Key {
			case "cursor.stall.in_flight":
				what = strings.Trim(kv.Value, `"`)
			case "cursor.stall.duration_ms":
				ms, _ := time.ParseDuration(kv.Value + "ms")
				d = ms
			}
		}
		out[what] = max(out[what], d)
	}
	return out
}

// An agent that goes quiet longer than the threshold: the gap is a stall
// on the trace and in the summary, with what was in flight. The stand-in
// agent replays the example ten times faster: its 9.15 s go test is a
// 0.9 s silence.
func TestStallsAreRecorded(t *testing.T) {
	md := filepath.Join(t.TempDir(), "summary.md")
	w := runWrapped(t, wrapSpec{args: streamArgs(), env: []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson",
		"FAKEAGENT_SPEED=10", "CURSOR_OTEL_STALL_THRESHOLD=600ms", "CURSOR_OTEL_SUMMARY=" + md}})
	if w.exit != 0 {
		t.Fatalf("exit %d: %s", w.exit, w.stderr)
	}
	session := sessionSpan(t, w.spans)
	got := stalls(session)
	if d := got["tool shell: go test ./pkg/queue"]; d < 800*time.Millisecond || d > 2*time.Second {
		t.Errorf("stalls %v: want the go test's ~0.9 s silence", got)
	}
	if session.Status == "Error" {
		t.Errorf("a stall is no failure: %s", session.StatusMessage)
	}
	b, _ := os.ReadFile(md)
	if !strings.Contains(string(b), "**Stalls**") || !strings.Contains(string(b), "| tool shell: go test ./pkg/queue |") {
		t.Errorf("summary shows no stall:\n%s", b)
	}
}

// --stall-timeout: an agent silent that long is stopped (TERM), its trace
// ends saying why, and cursor-otel exits with the agent's status; one that
// ignores TERM is killed 5 s later.
func TestStallTimeoutStopsTheAgent(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  []string
		exit int
	}{
		{"TERM", nil, 143},
		{"KILL after TERM is ignored", []string{"FAKEAGENT_ON_SIGNAL=continue", "FAKEAGENT_SIGNALS=" + filepath.Join(t.TempDir(), "signals")}, 137},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := append([]string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "FAKEAGENT_SPEED=1000", "FAKEAGENT_HANG=1",
				"CURSOR_OTEL_STALL_TIMEOUT=1s"}, tt.env...)
			w := runWrapped(t, wrapSpec{args: streamArgs(), env: env})
			if w.exit != tt.exit {
				t.Errorf("exit %d, want %d", w.exit, tt.exit)
			}
			if !strings.HasPrefix(w.stderr, "cursor-otel: no output from cursor-agent for 1s: stopping it (--stall-timeout)\n") {
				t.Errorf("stderr %q", w.stderr)
			}
			if limit := time.Second + 5*time.Second*time.Duration(tt.exit/137) + 3*time.Second; w.took > limit {
				t.Errorf("took %v, want under %v", w.took, limit)
			}
			s := sessionSpan(t, w.spans)
			if value(s, "error.type") != "stall_timeout" || !strings.HasPrefix(s.StatusMessage, "no output for 1s: cursor-otel stopped the agent (--stall-timeout)") {
				t.Errorf("session: %s %q", value(s, "error.type"), s.StatusMessage)
			}
			if d := stalls(s)["between steps"]; d < time.Second {
				t.Errorf("stalls %v: want the final silence", stalls(s))
			}
		})
	}
}
