package e2e

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/filelock"
	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// hookEvents are the recorded-shape events of an interactive session.
func hookEvents(t *testing.T) []string {
	t.Helper()
	return linesOf(t, "spanmap/testdata/hooks/interactive-session.ndjson")
}

// runHooks feeds each event to a cursor-otel hook process of its own, as
// Cursor does, and checks each answers at once as if no hook were there:
// the neutral answer, status 0, nothing on stderr. It returns how long
// each took.
func runHooks(t *testing.T, env []string, events []string, flags ...string) []time.Duration {
	t.Helper()
	// The hooks' background delivery outlives them: the test's
	// directories go once it is done with them.
	for _, kv := range env {
		if dir, ok := strings.CutPrefix(kv, "CURSOR_OTEL_STATE_DIR="); ok {
			t.Cleanup(func() { waitForDeliverer(dir) })
		}
	}
	var took []time.Duration
	for _, line := range events {
		r := runBinary(t, env, strings.NewReader(line+"\n"), append([]string{"hook"}, flags...)...)
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

// waitForDeliverer waits, polling, until no background delivery holds
// dir's lock (a few looks in a row: one may start as another ends), or
// 30 s.
func waitForDeliverer(dir string) {
	free := 0
	for deadline := time.Now().Add(30 * time.Second); free < 5 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if unlock, err := filelock.Lock(filepath.Join(dir, "deliverer.lock"), false); err == nil {
			unlock()
			free++
		} else if errors.Is(err, fs.ErrNotExist) {
			free++
		} else {
			free = 0
		}
	}
}

// waitForSpans waits until the receiver holds n spans, or the deadline.
func waitForSpans(t *testing.T, recv *otlptest.Receiver, n int, within time.Duration) []golden.Span {
	t.Helper()
	deadline := time.Now().Add(within)
	for recv.SpanCount() < n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // polling the receiver's count: the background delivery runs on its own
	}
	return golden.FromOTLP(recv.Spans())
}

// An interactive session, one hook process an event, into a real
// receiver: a trace a turn, each whole (its root, its chat, each tool
// under its generation with the duration its event gave), each turn's
// root linked to the one before, the conversation's end (come before the
// last turn was built) on the last turn's root, no root of its own; no
// span whose parent is missing, nothing twice; every hook answered within
// its budget.
func TestHooksMakeATraceATurn(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	state := t.TempDir()
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + state, "OTEL_METRICS_EXPORTER=none"}
	took := runHooks(t, env, hookEvents(t))
	spans := waitForSpans(t, recv, 7, 15*time.Second)
	if len(spans) != 7 {
		t.Fatalf("%d spans arrived, want 7 (2 turns of a root, a chat and their tools): %v", len(spans), spanNames(spans))
	}
	noSpanTwice(t, spans)
	checkTurns(t, "conv-7c1e", spans, 2)
	ids := map[string]golden.Span{}
	for _, s := range spans {
		ids[s.TraceID+"/"+s.SpanID] = s
	}
	roots := turnRoots(t, spans)
	if len(roots) != 2 {
		t.Fatalf("%d roots, want 2 (two turns)", len(roots))
	}
	for i, root := range roots {
		if root.ParentID != "" || value(root, "gen_ai.conversation.id") != "conv-7c1e" || value(root, "cursor.source") != "hooks" {
			t.Errorf("root %d: %+v", i, root)
		}
		if i > 0 && (len(root.Links) != 1 || root.Links[0] != roots[i-1].TraceID+"/"+roots[i-1].SpanID) {
			t.Errorf("root %d links to %v, want the root before it, %s/%s", i, root.Links, roots[i-1].TraceID, roots[i-1].SpanID)
		}
	}
	if value(roots[1], "cursor.session.end_reason") != "user_close" || value(roots[1], "cursor.session.duration_ms") != "60000" {
		t.Errorf("the conversation's end says %q, %sms; want user_close, 60000", value(roots[1], "cursor.session.end_reason"), value(roots[1], "cursor.session.duration_ms"))
	}
	for _, s := range spans {
		if s.ParentID != "" && ids[s.TraceID+"/"+s.ParentID].Name == "" {
			t.Errorf("%s: its parent %s never came", s.Name, s.ParentID)
		}
	}
	for _, tt := range []struct {
		name, generation string
		turn             int
		duration         time.Duration
		status           string
	}{
		{"execute_tool shell", "gen-1", 0, 2300 * time.Millisecond, "Error"},
		{"execute_tool read", "gen-1", 0, 15 * time.Millisecond, "Error"},
		{"execute_tool edit", "gen-2", 1, 50 * time.Millisecond, "Unset"},
	} {
		i := slices.IndexFunc(spans, func(s golden.Span) bool { return s.Name == tt.name })
		if i < 0 {
			t.Errorf("no %s", tt.name)
			continue
		}
		s, parent := spans[i], ids[spans[i].TraceID+"/"+spans[i].ParentID]
		if d := s.End.Sub(s.Start); d != tt.duration || s.Status != tt.status || value(parent, "cursor.generation_id") != tt.generation ||
			parent.ParentID != roots[tt.turn].SpanID || s.TraceID != roots[tt.turn].TraceID {
			t.Errorf("%s: %v, status %q, under %s %q, in trace %s", tt.name, d, s.Status, parent.Name, value(parent, "cursor.generation_id"), s.TraceID)
		}
	}
	if p := dist(took); timingChecked(t) && p.worst > 500*time.Millisecond {
		t.Errorf("hooks took median %v, worst %v: want well under the budget", p.median, p.worst)
	} else {
		t.Logf("%d hooks, collector up: median %v, worst %v", len(took), p.median, p.worst)
	}
	if left := journalLeft(t, state, 10*time.Second); len(left) != 0 {
		t.Errorf("events of closed turns are left in the journal: %v", left)
	}
}

// journalLeft are the hook events left in the journals of the state
// directory dir, once none is left or within has passed: a closed
// turn's are taken once its spans are kept.
func journalLeft(t *testing.T, dir string, within time.Duration) []string {
	t.Helper()
	var left []string
	for deadline := time.Now().Add(within); ; time.Sleep(50 * time.Millisecond) {
		left, _ = filepath.Glob(filepath.Join(dir, "journal", "*", "*.json"))
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
	}
}

// turnRoots are the roots of the traces of hooks' spans, in the order
// they started (a conversation's end last).
func turnRoots(t *testing.T, spans []golden.Span) []golden.Span {
	t.Helper()
	var roots []golden.Span
	for _, s := range spans {
		if s.Name == "invoke_agent cursor-agent" {
			roots = append(roots, s)
		}
	}
	slices.SortStableFunc(roots, func(a, b golden.Span) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return strings.Compare(value(a, "cursor.session.end_reason"), value(b, "cursor.session.end_reason"))
	})
	return roots
}

// With the collector down, hooks answer as fast: the spans wait in the
// spool, and go when a later hook finds the collector there, each once.
func TestHooksWithTheCollectorDown(t *testing.T) {
	t.Parallel() // waits on the delivery's timers, not the CPU
	down := otlptest.Down(t)
	state := t.TempDir()
	spoolDir := filepath.Join(state, "kept")
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + down, "CURSOR_OTEL_STATE_DIR=" + state, "OTEL_METRICS_EXPORTER=none", "CURSOR_OTEL_SPOOL=" + spoolDir}
	t.Cleanup(func() { waitForDeliverers(t, spoolDir) })
	events := hookEvents(t)
	took := runHooks(t, env, events[:9]) // the first generation
	p := dist(took)
	t.Logf("%d hooks, collector down: median %v, worst %v", len(took), p.median, p.worst)
	if timingChecked(t) && p.worst > 500*time.Millisecond {
		t.Errorf("hooks took median %v, worst %v with the collector down", p.median, p.worst)
	}
	// The delivery builds the turns into the spool, and leaves them
	// there: the collector is down.
	for deadline := time.Now().Add(10 * time.Second); keptSpans(t, spoolDir) < 3 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond) // polling the spool: the deliveries run on their own
	}
	if n := keptSpans(t, spoolDir); n != 4 {
		t.Errorf("spool holds %d spans, want the first turn's 4 (its root, a chat, 2 tools)", n)
	}

	recv, err := otlptest.ListenGRPC(strings.TrimPrefix(down, "http://"), nil)
	if err != nil {
		t.Skipf("the collector's port was taken meanwhile: %v", err)
	}
	t.Cleanup(recv.Stop)
	runHooks(t, env, events[9:])
	spans := waitForSpans(t, recv, 7, 15*time.Second)
	if len(spans) != 7 {
		t.Errorf("%d spans once the collector was back, want 7: %v", len(spans), spanNames(spans))
	}
	noSpanTwice(t, spans)
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

// Payloads as newer Cursors send them, some behind a UTF-8 byte-order
// mark, one hook process each, into a real receiver: each failure_type
// and each sessionEnd reason recorded, and answered neutrally.
func TestHookPayloadsOfNewerCursors(t *testing.T) {
	t.Parallel() // waits on the hooks' grace and the delivery's timers, not the CPU
	const bom = "\ufeff"
	common := `"model":"claude-4.6-sonnet","cursor_version":"2.6.3","workspace_roots":["/home/dev/app"]`
	event := func(conversation, rest string) string {
		return `{"conversation_id":"` + conversation + `",` + common + `,` + rest + `}`
	}
	tool := func(name, id, input string) string {
		return `"generation_id":"gen-1","tool_name":"` + name + `","tool_input":` + input + `,"tool_use_id":"` + id + `"`
	}
	events := []string{
		bom + event("conv-fail", `"hook_event_name":"sessionStart","generation_id":"","session_id":"conv-fail"`),
		bom + event("conv-fail", `"hook_event_name":"beforeSubmitPrompt","generation_id":"gen-1","prompt":"deploy it"`),
		bom + event("conv-fail", `"hook_event_name":"preToolUse",`+tool("Shell", "toolu_t", `{"command":"./deploy.sh"}`)),
		event("conv-fail", `"hook_event_name":"postToolUseFailure",`+tool("Shell", "toolu_t", `{"command":"./deploy.sh"}`)+
			`,"error_message":"Command timed out after 30000ms","failure_type":"timeout","duration":30000`),
		event("conv-fail", `"hook_event_name":"preToolUse",`+tool("Read", "toolu_e", `{"file_path":"deploy.yaml"}`)),
		bom + event("conv-fail", `"hook_event_name":"postToolUseFailure",`+tool("Read", "toolu_e", `{"file_path":"deploy.yaml"}`)+
			`,"error_message":"File not found: deploy.yaml","failure_type":"error","duration":12`),
		event("conv-fail", `"hook_event_name":"preToolUse",`+tool("Edit", "toolu_p", `{"file_path":".env"}`)),
		bom + event("conv-fail", `"hook_event_name":"postToolUseFailure",`+tool("Edit", "toolu_p", `{"file_path":".env"}`)+
			`,"error_message":"Editing .env is not permitted","failure_type":"permission_denied","duration":3`),
		event("conv-fail", `"hook_event_name":"stop","generation_id":"gen-1","status":"completed","loop_count":0`),
		bom + event("conv-fail", `"hook_event_name":"sessionEnd","generation_id":"","session_id":"conv-fail","reason":"error","duration_ms":45000`),
	}
	reasons := map[string]string{"conv-fail": "error"}
	for _, reason := range []string{"completed", "aborted", "window_close", "user_close"} {
		conv := "conv-" + reason
		reasons[conv] = reason
		events = append(events,
			bom+event(conv, `"hook_event_name":"sessionStart","generation_id":"","session_id":"`+conv+`"`),
			bom+event(conv, `"hook_event_name":"sessionEnd","generation_id":"","session_id":"`+conv+`","reason":"`+reason+`","duration_ms":1000`))
	}

	recv := otlptest.StartGRPC(t)
	reports := filepath.Join(t.TempDir(), "runs.jsonl")
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + t.TempDir(), "OTEL_METRICS_EXPORTER=none",
		"CURSOR_OTEL_SUMMARY_JSON=" + reports}
	runHooks(t, env, events)
	const want = 5 // conv-fail's turn (root, chat, three tools), its end on the root; the other conversations had no turn
	spans := waitForSpans(t, recv, want, 15*time.Second)
	if len(spans) != want {
		t.Fatalf("%d spans arrived, want %d: %v", len(spans), want, spanNames(spans))
	}

	for _, tt := range []struct {
		name, outcome, errorType, status, toolError string
	}{
		{"execute_tool shell", "error", "timeout", "Error", "Command timed out after 30000ms"},
		{"execute_tool read", "error", "error", "Error", "File not found: deploy.yaml"},
		{"execute_tool edit", "rejected", "", "Unset", "Editing .env is not permitted"},
	} {
		i := slices.IndexFunc(spans, func(s golden.Span) bool { return s.Name == tt.name })
		if i < 0 {
			t.Errorf("no %s", tt.name)
			continue
		}
		s := spans[i]
		if value(s, "cursor.tool.outcome") != tt.outcome || value(s, "error.type") != tt.errorType || s.Status != tt.status || value(s, "cursor.tool.error") != tt.toolError {
			t.Errorf("%s: outcome %q, error.type %q, status %q, cursor.tool.error %q; want %q %q %q %q", tt.name,
				value(s, "cursor.tool.outcome"), value(s, "error.type"), s.Status, value(s, "cursor.tool.error"),
				tt.outcome, tt.errorType, tt.status, tt.toolError)
		}
	}
	// The failed conversation's end is on its turn; the others, which
	// had no turn, are no trace: their ends are in the reports.
	said := map[string]string{}
	for _, s := range spans {
		if s.ParentID == "" {
			said[value(s, "gen_ai.conversation.id")] = value(s, "cursor.session.end_reason")
			if s.Status != "Error" {
				t.Errorf("%s: the turn of a session ended in error has status %q", s.Name, s.Status)
			}
		}
	}
	for deadline := time.Now().Add(15 * time.Second); len(said) < len(reasons) && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) { // polling: the background delivery writes the reports
		b, _ := os.ReadFile(reports)
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r struct {
				End struct {
					Session string `json:"session_id"`
					Reason  string `json:"reason"`
				} `json:"session_end"`
			}
			if json.Unmarshal([]byte(line), &r) == nil && r.End.Session != "" {
				said[r.End.Session] = r.End.Reason
			}
		}
	}
	for conv, reason := range reasons {
		if said[conv] != reason {
			t.Errorf("session %s: end_reason %q, want %q", conv, said[conv], reason)
		}
	}
}

// theirHooks is a user's hooks.json: entries that run "PROGRAM hook" but
// are not cursor-otel (a relative script, a program that is there).
const theirHooks = `{
    "version": 1,
    "hooks": {
        "stop": [ { "command": "./hooks/audit hook" } ],
        "preToolUse": [ { "command": "/bin/sh hook", "timeout": 5 } ]
    }
}
`

// Built under another name, moved, or beside another build, cursor-otel
// knows its entries by what they run: installing twice is once, and
// uninstall gives hooks.json back byte for byte, the user's entries kept.
func TestHooksInstallUnderAnotherName(t *testing.T) {
	bin := t.TempDir()
	// A build under another name: go build -o co makes these same bytes.
	install := func(t *testing.T, name string, extra string) string {
		b, err := os.ReadFile(binary)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(bin, t.Name(), name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, append(b, extra...), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	setup := func(t *testing.T) (env []string, path string) {
		home := t.TempDir()
		path = filepath.Join(home, ".cursor", "hooks.json")
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(theirHooks), 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{"HOME=" + home}, path
	}
	// runs checks each event holds exactly one cursor-otel entry, running
	// prog, after the user's own.
	runs := func(t *testing.T, path, prog string) {
		t.Helper()
		b, _ := os.ReadFile(path)
		var f struct {
			Hooks map[string][]struct{ Command string }
		}
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("hooks.json is not JSON: %v\n%s", err, b)
		}
		for _, event := range []string{"sessionStart", "preToolUse", "postToolUseFailure", "sessionEnd", "stop"} {
			var ours []string
			for _, e := range f.Hooks[event] {
				if strings.HasSuffix(e.Command, " hook") && strings.Contains(e.Command, bin) {
					ours = append(ours, e.Command)
				}
			}
			if len(ours) != 1 || ours[0] != prog+" hook" {
				t.Errorf("%s: cursor-otel entries %q, want one running %s", event, ours, prog)
			}
		}
		if !strings.Contains(string(b), `"./hooks/audit hook"`) || !strings.Contains(string(b), `"/bin/sh hook"`) {
			t.Errorf("the user's entries are gone:\n%s", b)
		}
	}
	uninstalled := func(t *testing.T, env []string, path, prog string) {
		t.Helper()
		if r := runCommand(t, prog, env, nil, "hooks", "uninstall"); r.exit != 0 || !strings.Contains(r.stdout, "hook removed from "+path) {
			t.Errorf("uninstall: exit %d, %q %q", r.exit, r.stdout, r.stderr)
		}
		if b, _ := os.ReadFile(path); string(b) != theirHooks {
			t.Errorf("uninstall gave back\n%s\nwant\n%s", b, theirHooks)
		}
		if r := runCommand(t, prog, env, nil, "hooks", "uninstall"); !strings.Contains(r.stdout, "hook not installed in") {
			t.Errorf("second uninstall: %q %q", r.stdout, r.stderr)
		}
		if b, _ := os.ReadFile(path); string(b) != theirHooks {
			t.Errorf("a second uninstall rewrote hooks.json:\n%s", b)
		}
	}

	t.Run("renamed, twice, then another build", func(t *testing.T) {
		env, path := setup(t)
		co := install(t, "co", "")
		if r := runCommand(t, co, env, nil, "hooks", "install"); r.exit != 0 || !strings.Contains(r.stdout, "hook installed in "+path) {
			t.Fatalf("install: exit %d, %q %q", r.exit, r.stdout, r.stderr)
		}
		once, _ := os.ReadFile(path)
		if r := runCommand(t, co, env, nil, "hooks", "install"); !strings.Contains(r.stdout, "already installed") {
			t.Errorf("second install: %q %q", r.stdout, r.stderr)
		}
		if twice, _ := os.ReadFile(path); string(twice) != string(once) {
			t.Errorf("installing twice changed hooks.json:\n%s", twice)
		}
		runs(t, path, co)
		// Another build (other bytes, the same program) under another name,
		// beside the first: it replaces the first's entries.
		next := install(t, "otel-hooks", "another build")
		if r := runCommand(t, next, env, nil, "hooks", "install"); r.exit != 0 {
			t.Fatalf("install of another build: exit %d, %q", r.exit, r.stderr)
		}
		runs(t, path, next)
		uninstalled(t, env, path, co)
	})

	t.Run("moved", func(t *testing.T) {
		env, path := setup(t)
		co := install(t, "co", "")
		if r := runCommand(t, co, env, nil, "hooks", "install"); r.exit != 0 {
			t.Fatalf("install: exit %d, %q", r.exit, r.stderr)
		}
		moved := filepath.Join(filepath.Dir(co), "elsewhere", "co")
		os.MkdirAll(filepath.Dir(moved), 0o755)
		if err := os.Rename(co, moved); err != nil {
			t.Fatal(err)
		}
		if r := runCommand(t, moved, env, nil, "hooks", "install"); r.exit != 0 || !strings.Contains(r.stdout, "hook installed in") {
			t.Fatalf("install after the move: exit %d, %q %q", r.exit, r.stdout, r.stderr)
		}
		runs(t, path, moved)
		// Moved again: uninstall finds the entries of the path it left.
		again := filepath.Join(filepath.Dir(co), "again", "co")
		os.MkdirAll(filepath.Dir(again), 0o755)
		if err := os.Rename(moved, again); err != nil {
			t.Fatal(err)
		}
		uninstalled(t, env, path, again)
	})
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

// Two generations, each ended by stop, then a sessionEnd that names the
// last generation, as some Cursor versions send it: every span arrives
// once.
func TestHooksExportEachSpanOnce(t *testing.T) {
	t.Parallel() // waits on the hooks' grace and the delivery's timers, not the CPU
	recv := otlptest.StartGRPC(t)
	state := t.TempDir()
	spoolDir := filepath.Join(state, "kept")
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + state, "OTEL_METRICS_EXPORTER=none", "CURSOR_OTEL_SPOOL=" + spoolDir}
	t.Cleanup(func() { waitForDeliverers(t, spoolDir) })
	events := hookEvents(t)
	last := events[len(events)-1]
	events[len(events)-1] = strings.Replace(last, `"generation_id":""`, `"generation_id":"gen-2"`, 1)
	runHooks(t, env, events)
	waitForSpans(t, recv, 7, 15*time.Second)
	// A duplicate would come after the seven: give the deliveries their time.
	waitForDeliverers(t, spoolDir)
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if left, _ := filepath.Glob(filepath.Join(state, "spool*.ndjson")); len(left) == 0 {
			break
		}
	}
	spans := golden.FromOTLP(recv.Spans())
	noSpanTwice(t, spans)
	if len(spans) != 7 {
		t.Errorf("%d spans, want 7 (2 turns of a root, a chat and their tools): %v", len(spans), spanNames(spans))
	}
}

// The hooks' records go only where the hooks were sending: a delivery
// with other settings (another collector, another tenant) leaves them,
// and says they wait; one with the hooks' settings exports them, once.
func TestHookRecordsGoOnlyToTheirCollector(t *testing.T) {
	t.Parallel() // waits on the hooks' grace and the delivery's timers, not the CPU
	a, b := otlptest.StartGRPC(t), otlptest.StartGRPC(t)
	state := t.TempDir()
	spoolDir := filepath.Join(state, "kept")
	common := []string{"CURSOR_OTEL_STATE_DIR=" + state, "OTEL_METRICS_EXPORTER=none", "CURSOR_OTEL_SPOOL=" + spoolDir}
	envA := append([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + a.Endpoint}, common...)
	envB := append([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + b.Endpoint, "OTEL_EXPORTER_OTLP_HEADERS=x-tenant=team"}, common...)
	// A delivery for A is alive: the hooks start none of their own.
	if err := os.MkdirAll(spoolDir, 0o700); err != nil {
		t.Fatal(err)
	}
	unlock, err := filelock.Lock(filepath.Join(spoolDir, "deliverer.lock"), false)
	if err != nil {
		t.Fatal(err)
	}
	runHooks(t, envB, hookEvents(t))
	unlock()
	r := runBinary(t, envA, nil, "flush")
	want := "2 sessions kept for " + b.Endpoint + " (grpc) with x-tenant (not set today) wait for that collector"
	if r.exit != 0 || !strings.Contains(r.stdout, want) || a.SpanCount() != 0 {
		t.Errorf("flush with A's settings: exit %d, %q, %d spans at A; want 0, none, and %q", r.exit, r.stdout, a.SpanCount(), want)
	}
	r = runBinary(t, envB, nil, "flush")
	if r.exit != 0 || !strings.Contains(r.stdout, "delivered 2 sessions (7 spans) to "+b.Endpoint) {
		t.Errorf("flush with B's settings: exit %d, %q", r.exit, r.stdout)
	}
	spans := golden.FromOTLP(b.Spans())
	noSpanTwice(t, spans)
	if len(spans) != 7 || a.SpanCount() != 0 {
		t.Errorf("%d spans at B, %d at A; want the hooks' 7 (2 turns) at B alone", len(spans), a.SpanCount())
	}
}
