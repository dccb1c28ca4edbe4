package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// TestACPTurnsLinkAcrossAgentProcesses: an editor that restarts the agent
// and loads the session (as acpx does for each prompt) continues the
// session's chain of turns: the turn in the second process links to the
// turn in the first.
func TestACPTurnsLinkAcrossAgentProcesses(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeACP, "HOME=" + t.TempDir()}
	e := startEditor(t, binary, env, "acp")
	sid := e.newSession()
	e.prompt(sid, "echo", nil)
	e.close()
	first := waitSpans(t, recv, "the first process's turn", func(s []golden.Span) bool { return len(roots(s)) == 1 })

	e = startEditor(t, binary, env, "acp")
	e.request("initialize", map[string]any{"protocolVersion": 1})
	if a := e.request("session/load", map[string]any{"sessionId": sid, "cwd": "/w", "mcpServers": []any{}}); a.Error != nil || a.eof {
		t.Fatalf("session/load: %+v", a)
	}
	e.prompt(sid, "echo", nil)
	e.close()
	spans := waitSpans(t, recv, "the second process's turn", func(s []golden.Span) bool { return len(roots(s)) == 2 })
	var second golden.Span
	for _, r := range roots(spans) {
		if r.SpanID != roots(first)[0].SpanID {
			second = r
		}
	}
	links := second.Links
	if want := roots(first)[0].TraceID + "/" + roots(first)[0].SpanID; len(links) != 1 || links[0] != want {
		t.Errorf("the turn after the restart links to %v, want the first process's turn %s", links, want)
	}
}

// TestACPCancelThenPromptAtOnce: a person stops the agent and types again
// at once: the next prompt goes before the cancelled turn's answer. The
// cancelled turn is cancelled, no error, closed by its own answer; the
// next is a turn of its own.
func TestACPCancelThenPromptAtOnce(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	e := startEditor(t, binary, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeACP}, "acp")
	sid := e.newSession()
	e.nextID++
	e.write(map[string]any{"jsonrpc": "2.0", "id": e.nextID, "method": "session/prompt",
		"params": map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "cancel"}}}})
	for {
		line, err := e.out.ReadBytes('\n')
		e.got.Write(line)
		if err != nil {
			t.Fatalf("the agent ended before its tool call: %v", err)
		}
		if strings.Contains(string(line), `"call-c"`) {
			break
		}
	}
	e.notify("session/cancel", map[string]any{"sessionId": sid})
	if a := e.prompt(sid, "echo", nil); a.Error != nil || a.eof {
		t.Fatalf("the next prompt: %+v", a)
	}
	spans := waitSpans(t, recv, "both turns", func(s []golden.Span) bool { return len(roots(s)) == 2 })
	e.close()
	turns := roots(spans)
	slicesSortByStart(turns)
	for i, want := range []string{`["cancelled"]`, `["end_turn"]`} {
		if got := value(turns[i], "gen_ai.response.finish_reasons"); got != want || turns[i].Status == "Error" {
			t.Errorf("turn %d: finish reasons %s status %q (%s), want %s and no error", i+1, got, turns[i].Status, turns[i].StatusMessage, want)
		}
	}
}

// TestACPWaitsAndSubagentsThroughTheBinary: a question, a plan approval
// and an elicitation are spans with their outcomes; a subagent is an
// invoke_agent span under its tool call with its own tool and request
// under it; Cursor's task is one too.
func TestACPWaitsAndSubagentsThroughTheBinary(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	e := startEditor(t, binary, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeACP}, "acp")
	sid := e.newSession()
	for _, p := range []string{"ask", "subagent"} {
		if a := e.prompt(sid, p, nil); a.Error != nil || a.eof {
			t.Fatalf("%s: %+v", p, a)
		}
	}
	spans := waitSpans(t, recv, "both turns", func(s []golden.Span) bool { return len(roots(s)) == 2 })
	e.close()
	// A plan to approve is an approval (request_permission); each wait
	// says its answer in cursor.interaction.outcome alone.
	for name, outcome := range map[string]string{"cursor/ask_question": "answered", "request_permission": "approved", "elicitation/create": "decline"} {
		s := spansNamed(spans, name)
		if len(s) != 1 || value(s[0], "cursor.interaction.outcome") != outcome || value(s[0], "cursor.acp.outcome") != "" || value(s[0], "cursor.acp.wait") != "true" {
			t.Errorf("%s: %+v", name, s)
		}
	}
	explore := spansNamed(spans, "invoke_agent explore")
	read := spansNamed(spans, "execute_tool read")
	fs := spansNamed(spans, "fs/read_text_file")
	if len(explore) != 1 || explore[0].Kind != "internal" || len(read) != 1 || read[0].ParentID != explore[0].SpanID || len(fs) != 1 || fs[0].ParentID != read[0].SpanID {
		t.Errorf("the subagent's tree:\n%s", golden.Render(spans))
	}
	if task := spansNamed(spans, "invoke_agent shell"); len(task) != 1 || value(task[0], "cursor.subagent.id") != "agent-7" || value(task[0], "gen_ai.agent.id") != "" {
		t.Errorf("Cursor's task: %+v", task)
	}
}

// TestACPSummaryPerTurn: --summary-json gives a report per turn, as a
// wrapped run gives one per session.
func TestACPSummaryPerTurn(t *testing.T) {
	for _, given := range []string{"environment", "flag"} {
		t.Run(given, func(t *testing.T) { acpSummaryPerTurn(t, given) })
	}
}

// acpSummaryPerTurn is TestACPSummaryPerTurn with --summary-json given
// as its CURSOR_OTEL_* twin or as a flag.
func acpSummaryPerTurn(t *testing.T, given string) {
	recv := otlptest.StartGRPC(t)
	out := filepath.Join(t.TempDir(), "summary.jsonl")
	env, args := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeACP}, []string{"acp"}
	if given == "flag" {
		args = []string{"--summary-json", out, "acp"}
	} else {
		env = append(env, "CURSOR_OTEL_SUMMARY_JSON="+out)
	}
	e := startEditor(t, binary, env, args...)
	sid := e.newSession()
	for _, p := range []string{"work", "echo"} {
		if a := e.prompt(sid, p, nil); a.Error != nil || a.eof {
			t.Fatalf("%s: %+v", p, a)
		}
	}
	if code := e.close(); code != 0 {
		t.Fatalf("exit %d: %s", code, e.stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		t.Fatalf("want a report per turn, got %d lines:\n%s", len(lines), b)
	}
	var first struct {
		SessionID string   `json:"session_id"`
		CostUSD   *float64 `json:"cost_usd"`
		Tokens    *struct {
			Input int64 `json:"input"`
		} `json:"tokens"`
		ToolKinds []struct {
			Name  string `json:"name"`
			Count int    `json:"count"`
		} `json:"tool_kinds"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.SessionID != sid || first.CostUSD == nil || *first.CostUSD != 0.045 || first.Tokens == nil || first.Tokens.Input != 1200 || len(first.ToolKinds) != 2 {
		t.Errorf("the work turn's report: %s", lines[0])
	}
}
