package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

// acpRecord is what the stand-in ACP agent saw and wrote.
type acpRecord struct {
	Args         []string `json:"args"`
	Read         string   `json:"read"`
	Wrote        string   `json:"wrote"`
	StreamTraced string   `json:"stream_traced"`
}

func readACPRecord(t *testing.T, path string) acpRecord {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the stand-in left no record: %v", err)
	}
	var r acpRecord
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// waitSpans polls the receiver until ok says the spans are there.
func waitSpans(t *testing.T, recv *otlptest.Receiver, what string, ok func([]golden.Span) bool) []golden.Span {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		spans := golden.FromOTLP(recv.Spans())
		if ok(spans) {
			return spans
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not received; got:\n%s", what, golden.Render(spans))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func roots(spans []golden.Span) []golden.Span { return spansNamed(spans, "invoke_agent cursor-agent") }

// TestACPSessionTracedAndUntouched drives a whole editor session through
// cursor-otel: the agent gets exactly its arguments, every byte crosses
// both ways unchanged, and each turn's trace reaches the collector while
// the session is still open.
func TestACPSessionTracedAndUntouched(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	record := filepath.Join(t.TempDir(), "record.json")
	args := []string{"--api-key", "key-a1b2c3d4e5f6", "-e", "https://api2.cursor.sh", "acp"}
	e := startEditor(t, binary, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeACP,
		"FAKEACP_RECORD=" + record, "FAKEACP_MODEL=claude-4.5-sonnet"}, args...)
	e.bigFile = 3 << 20
	sid := e.newSession()
	parent := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	if a := e.prompt(sid, "work", map[string]any{"traceparent": parent}); a.Error != nil || a.eof {
		t.Fatalf("work turn: %+v", a)
	}
	// Exported while the session is open.
	spans := waitSpans(t, recv, "the first turn", func(s []golden.Span) bool { return len(roots(s)) == 1 })
	root := roots(spans)[0]
	if root.Kind != "client" || value(root, "gen_ai.conversation.id") != sid || value(root, "gen_ai.request.model") != "claude-4.5-sonnet" ||
		value(root, "gen_ai.response.finish_reasons") != `["end_turn"]` || root.Status == "Error" {
		t.Errorf("turn root:\n%s", golden.Render([]golden.Span{root}))
	}
	if root.TraceID != "0af7651916cd43dd8448eb211c80319c" || root.ParentID != "b7ad6b7169203331" {
		t.Errorf("the prompt's _meta.traceparent is not the turn's parent: trace %s parent %s", root.TraceID, root.ParentID)
	}
	if value(root, "gen_ai.usage.cost") != "0.045" || value(root, "gen_ai.usage.input_tokens") != "1200" || value(root, "cursor.context.used_tokens") != "53000" {
		t.Errorf("usage and cost: %v", root.Attributes)
	}
	tools := spansNamed(spans, "execute_tool ")
	if len(tools) != 2 {
		t.Fatalf("want 2 tool spans, got:\n%s", golden.Render(spans))
	}
	var edit, execute golden.Span
	for _, s := range tools {
		switch s.Name {
		case "execute_tool edit":
			edit = s
		case "execute_tool shell":
			execute = s
		}
	}
	if value(edit, "gen_ai.tool.call.id") != "call-1" || value(edit, "cursor.tool.title") != "Edit main.go" || edit.Status == "Error" {
		t.Errorf("edit tool: %+v", edit)
	}
	if execute.Status != "Error" {
		t.Errorf("a failed tool call is not ERROR: %+v", execute)
	}
	perm := spansNamed(spans, "request_permission")
	if len(perm) != 1 || perm[0].ParentID != edit.SpanID || value(perm[0], "cursor.permission.option_id") != "allow-once" {
		t.Errorf("permission wait: %+v", perm)
	}
	fs := append(spansNamed(spans, "fs/"), spansNamed(spans, "terminal/")...)
	if len(fs) != 5 {
		t.Errorf("want 5 editor-work spans (2 fs, 3 terminal), got:\n%s", golden.Render(spans))
	}
	for _, s := range fs {
		if value(s, "rpc.system") != "jsonrpc" || value(s, "rpc.method") != s.Name || value(s, "gen_ai.conversation.id") != sid {
			t.Errorf("editor work %s: %v", s.Name, s.Attributes)
		}
		if strings.HasPrefix(s.Name, "fs/") && s.ParentID != edit.SpanID || strings.HasPrefix(s.Name, "terminal/") && s.ParentID != execute.SpanID {
			t.Errorf("%s is not under the tool call in progress", s.Name)
		}
	}
	events := map[string]int{}
	for _, ev := range root.Events {
		events[ev.Name]++
	}
	if events["cursor.thinking"] != 1 || events["cursor.plan"] != 1 {
		t.Errorf("events: %v", events)
	}
	for _, s := range spans {
		if value(s, "gen_ai.conversation.id") != sid || value(s, "gen_ai.agent.name") == "" {
			t.Errorf("%s lacks the conversation id or agent name", s.Name)
		}
	}
	checkConventions(t, "acp", spans)

	// More turns: a model change, a 3 MB file, a line that is not
	// JSON-RPC, an error, a cancel.
	e.request("session/set_model", map[string]any{"sessionId": sid, "modelId": "gpt-5"})
	if a := e.prompt(sid, "big", nil); a.Error != nil || a.eof {
		t.Fatalf("big turn: %+v", a)
	}
	if a := e.prompt(sid, "noise", nil); a.Error != nil || a.eof {
		t.Fatalf("noise turn: %+v", a)
	}
	if a := e.prompt(sid, "error", nil); a.Error == nil {
		t.Fatalf("error turn: %+v", a)
	}
	e.onUpdate = func(e *editor, line []byte) {
		if strings.Contains(string(line), `"call-c"`) {
			e.notify("session/cancel", map[string]any{"sessionId": sid})
		}
	}
	if a := e.prompt(sid, "cancel", nil); a.Error != nil || a.eof {
		t.Fatalf("cancel turn: %+v", a)
	}
	e.onUpdate = nil
	spans = waitSpans(t, recv, "five turns", func(s []golden.Span) bool { return len(roots(s)) == 5 })
	t.Logf("scripted session: %d turns, %d tool spans, %d permission spans, %d editor-work spans, %d spans in all",
		len(roots(spans)), len(spansNamed(spans, "execute_tool ")), len(spansNamed(spans, "request_permission")),
		len(spansNamed(spans, "fs/"))+len(spansNamed(spans, "terminal/")), len(spans))
	if code := e.close(); code != 0 {
		t.Errorf("exit %d, want the agent's 0; stderr %q", code, e.stderr.String())
	}
	if e.stderr.Len() != 0 {
		t.Errorf("stderr: %q", e.stderr.String())
	}
	rec := readACPRecord(t, record)
	if !slices.Equal(rec.Args, args) {
		t.Errorf("the agent got %q, want exactly %q", rec.Args, args)
	}
	if rec.Read != e.sent.String() {
		t.Errorf("the agent read other bytes than the editor wrote (%d vs %d bytes)", len(rec.Read), e.sent.Len())
	}
	if rec.Wrote != e.got.String() {
		t.Errorf("the editor read other bytes than the agent wrote (%d vs %d bytes)", e.got.Len(), len(rec.Wrote))
	}
	if rec.StreamTraced != "1" {
		t.Errorf("hooks in ACP mode would trace the turns twice: CURSOR_OTEL_STREAM_TRACED=%q", rec.StreamTraced)
	}
	byPrompt := roots(spans)
	slicesSortByStart(byPrompt)
	if m := value(byPrompt[1], "gen_ai.request.model"); m != "gpt-5" {
		t.Errorf("after session/set_model the model is %q", m)
	}
	if byPrompt[3].Status != "Error" || !strings.Contains(byPrompt[3].StatusMessage, "model unavailable") || value(byPrompt[3], "rpc.jsonrpc.error_code") != "-32603" {
		t.Errorf("a JSON-RPC error answer: %+v", byPrompt[3])
	}
	if byPrompt[4].Status == "Error" || value(byPrompt[4], "gen_ai.response.finish_reasons") != `["cancelled"]` {
		t.Errorf("a cancelled turn: %+v", byPrompt[4])
	}
	// Each turn links to the turn before it.
	raw := recv.Spans()
	links := 0
	for _, rs := range raw {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				links += len(s.Links)
			}
		}
	}
	if links != 4 {
		t.Errorf("want 4 links (turn to turn before), got %d", links)
	}
	if traces := map[string]bool{}; true {
		for _, r := range byPrompt {
			traces[r.TraceID] = true
		}
		if len(traces) != 5 {
			t.Errorf("want a trace per turn, got %d traces", len(traces))
		}
	}
}

func slicesSortByStart(s []golden.Span) {
	slices.SortFunc(s, func(a, b golden.Span) int { return a.Start.Compare(b.Start) })
}

// TestACPAgentDiesMidTurn: the editor sees the agent's EOF and status, and
// the turn is exported ERROR.
func TestACPAgentDiesMidTurn(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	e := startEditor(t, binary, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeACP}, "acp")
	sid := e.newSession()
	if a := e.prompt(sid, "die", nil); !a.eof {
		t.Fatalf("want EOF, got %+v", a)
	}
	if code := e.close(); code != 3 {
		t.Errorf("exit %d, want the agent's 3", code)
	}
	if !strings.Contains(e.stderr.String(), "fakeacp: dying mid-turn") {
		t.Errorf("the agent's stderr: %q", e.stderr.String())
	}
	spans := waitSpans(t, recv, "the dead turn", func(s []golden.Span) bool { return len(roots(s)) == 1 })
	root := roots(spans)[0]
	if root.Status != "Error" || value(root, "process.exit.code") != "3" {
		t.Errorf("turn of a dead agent:\n%s", golden.Render(spans))
	}
	if tl := spansNamed(spans, "execute_tool delete"); len(tl) != 1 || tl[0].Status != "Error" {
		t.Errorf("its tool call: %+v", tl)
	}
	if fs := spansNamed(spans, "fs/read_text_file"); len(fs) != 1 || value(fs[0], "cursor.acp.unanswered") != "true" {
		t.Errorf("its unanswered request: %+v", fs)
	}
}

// TestACPAsCursorAgent: named cursor-agent on PATH, cursor-otel takes no
// flags: global flags before acp are the agent's, nothing added.
func TestACPAsCursorAgent(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	dir := t.TempDir()
	if err := os.Symlink(binary, filepath.Join(dir, "cursor-agent")); err != nil {
		t.Skip(err)
	}
	record := filepath.Join(t.TempDir(), "record.json")
	args := []string{"--api-key", "k", "--output-format", "json", "acp"}
	e := startEditor(t, filepath.Join(dir, "cursor-agent"), []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint,
		"CURSOR_OTEL_AGENT=" + fakeACP, "FAKEACP_RECORD=" + record}, args...)
	sid := e.newSession()
	e.prompt(sid, "hang", nil)
	waitSpans(t, recv, "the turn", func(s []golden.Span) bool { return len(roots(s)) == 1 })
	if code := e.close(); code != 0 {
		t.Errorf("exit %d", code)
	}
	if rec := readACPRecord(t, record); !slices.Equal(rec.Args, args) {
		t.Errorf("the agent got %q, want exactly %q", rec.Args, args)
	}
}

// TestACPEditorClosesAndKills: the editor closing stdin ends the session
// with the agent's own status; cursor-otel killed leaves no agent behind.
func TestACPEditorClosesAndKills(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeACP, "FAKEACP_EXIT=7"}
	e := startEditor(t, binary, env, "acp")
	e.newSession()
	if code := e.close(); code != 7 {
		t.Errorf("exit %d, want the agent's 7", code)
	}

	e = startEditor(t, binary, env, "acp")
	e.newSession()
	agents := proctest.Descendants(e.cmd.Process.Pid)
	if len(agents) == 0 {
		t.Fatal("no agent under cursor-otel")
	}
	if err := e.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range agents {
		for proctest.Alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("the agent (pid %d) runs on after cursor-otel was killed", pid)
			}
			time.Sleep(20 * time.Millisecond) // polling the process table
		}
	}
	e.close()
}
