package main

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// hookEvents are the recorded-shape events of an interactive session.
func hookEvents(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("testdata/hooks/interactive-session.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// runHooks feeds each event to a cursor-otel hook process of its own, as
// Cursor does, and checks each answers at once as if no hook were there:
// the neutral answer, status 0, nothing on stderr. It returns how long
// each took.
func runHooks(t *testing.T, env []string, events []string) []time.Duration {
	t.Helper()
	var took []time.Duration
	for _, line := range events {
		r := runBinary(t, env, strings.NewReader(line+"\n"), "hook")
		want := "{}\n"
		if strings.Contains(line, `"beforeSubmitPrompt"`) {
			want = "{\"continue\":true}\n"
		}
		if r.exit != 0 || r.stdout != want || r.stderr != "" {
			t.Errorf("hook for %.60s: exit %d, stdout %q, stderr %q", line, r.exit, r.stdout, r.stderr)
		}
		took = append(took, r.took)
	}
	return took
}

// waitForSpans waits until the receiver holds n spans, or the deadline.
func waitForSpans(t *testing.T, recv *otlptest.Receiver, n int, within time.Duration) []golden.Span {
	t.Helper()
	deadline := time.Now().Add(within)
	for recv.SpanCount() < n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // polling the receiver's count: the flusher runs on its own
	}
	return golden.FromOTLP(recv.Spans())
}

// An interactive session, one hook process an event, into a real
// receiver: one trace, the session, a chat per generation, each tool
// under its generation with the duration its event gave, nothing twice;
// every hook answered within its budget.
func TestHooksMakeOneTrace(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	state := t.TempDir()
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + state, "OTEL_METRICS_EXPORTER=none"}
	took := runHooks(t, env, hookEvents(t))
	spans := waitForSpans(t, recv, 6, 15*time.Second)
	if len(spans) != 6 {
		t.Fatalf("%d spans arrived, want 6 (session, 2 chats, 3 tools): %v", len(spans), spanNames(spans))
	}
	ids := map[string]golden.Span{}
	for _, s := range spans {
		if s.TraceID != spans[0].TraceID {
			t.Errorf("%s in trace %s, want all in %s", s.Name, s.TraceID, spans[0].TraceID)
		}
		if _, dup := ids[s.SpanID]; dup {
			t.Errorf("span %s exported twice", s.SpanID)
		}
		ids[s.SpanID] = s
	}
	session := sessionSpan(t, spans)
	if session.ParentID != "" || value(session, "gen_ai.conversation.id") != "conv-7c1e" || value(session, "cursor.source") != "hooks" {
		t.Errorf("session %+v", session)
	}
	for _, tt := range []struct {
		name, generation string
		duration         time.Duration
		status           string
	}{
		{"execute_tool shell", "gen-1", 2300 * time.Millisecond, "Error"},
		{"execute_tool read", "gen-1", 15 * time.Millisecond, "Error"},
		{"execute_tool edit", "gen-2", 50 * time.Millisecond, "Unset"},
	} {
		i := slices.IndexFunc(spans, func(s golden.Span) bool { return s.Name == tt.name })
		if i < 0 {
			t.Errorf("no %s", tt.name)
			continue
		}
		s, parent := spans[i], ids[spans[i].ParentID]
		if d := s.End.Sub(s.Start); d != tt.duration || s.Status != tt.status || value(parent, "cursor.generation_id") != tt.generation || parent.ParentID != session.SpanID {
			t.Errorf("%s: %v, status %q, under %s %q", tt.name, d, s.Status, parent.Name, value(parent, "cursor.generation_id"))
		}
	}
	if p := dist(took); timingChecked(t) && p.worst > 500*time.Millisecond {
		t.Errorf("hooks took median %v, worst %v: want well under the budget", p.median, p.worst)
	} else {
		t.Logf("%d hooks, collector up: median %v, worst %v", len(took), p.median, p.worst)
	}
	if left, _ := filepath.Glob(filepath.Join(state, "conversations", "*.json")); len(left) != 0 {
		t.Errorf("an ended session's state is left: %v", left)
	}
}

// With the collector down, hooks answer as fast: the spans wait in the
// spool, and go when a later hook finds the collector there.
func TestHooksWithTheCollectorDown(t *testing.T) {
	down := otlptest.Down(t)
	state := t.TempDir()
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + down, "CURSOR_OTEL_STATE_DIR=" + state, "OTEL_METRICS_EXPORTER=none"}
	events := hookEvents(t)
	took := runHooks(t, env, events[:9]) // the first generation
	p := dist(took)
	t.Logf("%d hooks, collector down: median %v, worst %v", len(took), p.median, p.worst)
	if timingChecked(t) && p.worst > 500*time.Millisecond {
		t.Errorf("hooks took median %v, worst %v with the collector down", p.median, p.worst)
	}
	// The flushers give up on the collector and leave the spans spooled.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(state, "last-export.txt")); err == nil && strings.Contains(string(b), "connection refused") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if b, _ := os.ReadFile(filepath.Join(state, "spool.ndjson")); strings.Count(string(b), "\n") != 3 {
		t.Errorf("spool holds %d records, want the 3 finished spans (2 tools, a chat)", strings.Count(string(b), "\n"))
	}

	recv, err := otlptest.ListenGRPC(strings.TrimPrefix(down, "http://"), nil)
	if err != nil {
		t.Skipf("the collector's port was taken meanwhile: %v", err)
	}
	t.Cleanup(recv.Stop)
	runHooks(t, env, events[9:])
	spans := waitForSpans(t, recv, 6, 15*time.Second)
	if len(spans) != 6 {
		t.Errorf("%d spans once the collector was back, want 6: %v", len(spans), spanNames(spans))
	}
}

// A run wrap mode traces from its stream is traced once: its hooks add
// nothing.
func TestHooksUnderWrapAddNothing(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	state := t.TempDir()
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + state, "CURSOR_OTEL_STREAM_TRACED=1"}
	runHooks(t, env, hookEvents(t))
	if entries, _ := os.ReadDir(state); len(entries) != 0 || recv.SpanCount() != 0 {
		t.Errorf("hooks under a traced run left %d files and exported %d spans", len(entries), recv.SpanCount())
	}
	// And wrap mode tells its agent so.
	w := runWrapped(t, wrapSpec{args: streamArgs(), env: []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson"}})
	if w.record.Env["CURSOR_OTEL_STREAM_TRACED"] != "1" {
		t.Errorf("the traced agent's environment lacks CURSOR_OTEL_STREAM_TRACED=1")
	}
}

// hooks install and uninstall, as a user runs them.
func TestHooksInstallCommand(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home}
	r := runBinary(t, env, nil, "hooks", "install")
	path := filepath.Join(home, ".cursor", "hooks.json")
	b, err := os.ReadFile(path)
	if r.exit != 0 || err != nil || !strings.Contains(r.stdout, "hook installed in "+path) || !strings.Contains(string(b), binary+` hook`) {
		t.Fatalf("install: exit %d, %q %q; file %s", r.exit, r.stdout, r.stderr, b)
	}
	if r = runBinary(t, env, nil, "hooks", "install"); !strings.Contains(r.stdout, "already installed") {
		t.Errorf("second install: %q", r.stdout)
	}
	if r = runBinary(t, env, nil, "hooks", "uninstall"); r.exit != 0 || !strings.Contains(r.stdout, "removed from") {
		t.Errorf("uninstall: exit %d %q %q", r.exit, r.stdout, r.stderr)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("hooks.json is left, though there was none")
	}
	if r = runBinary(t, env, nil, "hooks", "uninstall"); r.exit != 0 || !strings.Contains(r.stdout, "hook not installed in "+path) {
		t.Errorf("second uninstall: exit %d %q %q", r.exit, r.stdout, r.stderr)
	}
}

type distribution struct{ median, worst time.Duration }

func dist(ds []time.Duration) distribution {
	s := slices.Clone(ds)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return distribution{}
	}
	return distribution{median: s[len(s)/2], worst: s[len(s)-1]}
}
