//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

// sdkDir holds an ACP agent and client on the official TypeScript SDK,
// pinned (test/acpsdk; .ci/run installs them with npm ci).
const sdkDir = "test/acpsdk"

// sdkAgent is a command that starts the SDK's agent (whatever arguments
// it is given, acp among them), or "" to skip: node or the SDK missing.
func sdkAgent(t *testing.T) (node, agentCmd, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	if _, err := os.Stat(filepath.Join(sdkDir, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		t.Skipf("the SDK is not installed (npm ci --prefix %s)", sdkDir)
	}
	dir, err = filepath.Abs(sdkDir)
	if err != nil {
		t.Fatal(err)
	}
	agentCmd = filepath.Join(t.TempDir(), "sdk-agent")
	script := "#!/bin/sh\nexec " + node + " " + filepath.Join(dir, "agent.mjs") + "\n" // the agent's arguments (acp) are not node's
	if err := os.WriteFile(agentCmd, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return node, agentCmd, dir
}

// TestACPIdByValueWithTheSDKsAgent: an editor that writes a prompt's id
// as 2.0 gets the SDK agent's answer with id 2; the turn closes on it,
// while the session is still open.
func TestACPIdByValueWithTheSDKsAgent(t *testing.T) {
	_, agentCmd, _ := sdkAgent(t)
	recv := otlptest.StartGRPC(t)
	e := startEditor(t, binary, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + agentCmd}, "acp")
	sid := e.newSession()
	e.write(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage("2.0"), "method": "session/prompt",
		"params": map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "work"}}}})
	var answerID string
	for answerID == "" {
		line, err := e.out.ReadBytes('\n')
		e.got.Write(line)
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		_ = json.Unmarshal(line, &m)
		switch {
		case m.Method != "" && len(m.ID) > 0:
			e.answerAgent(m.ID, m.Method, m.Params)
		case m.Method == "" && len(m.Result) > 0:
			answerID = string(m.ID)
		}
	}
	t.Logf("the SDK's agent answered the prompt of id 2.0 with id %s", answerID)
	spans := waitSpans(t, recv, "the turn, closed by its answer", func(s []golden.Span) bool { return len(spansNamed(s, "invoke_agent sdk-agent")) == 1 })
	if r := spansNamed(spans, "invoke_agent sdk-agent")[0]; value(r, "gen_ai.response.finish_reasons") != `["end_turn"]` || r.Status == "Error" {
		t.Errorf("the turn: %+v", r)
	}
	e.close()
}

// TestACPWithTheSDKsClientAndAgent: real ACP software nobody here wrote
// the wire of: the SDK's client drives the SDK's agent directly and
// through cursor-otel, a turn and then a turn cancelled with the next
// prompt sent at once. The client gets the same answers both ways, and
// the trace has each turn closed by its own answer, the agent named by
// itself, the tools named by kinds given late, the file reads under the
// tools that name their files, and the cost each turn added.
func TestACPWithTheSDKsClientAndAgent(t *testing.T) {
	node, agentCmd, abs := sdkAgent(t)
	run := func(env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command(node, append([]string{filepath.Join(abs, "client.mjs")}, args...)...)
		cmd.Env = withBaseEnv(t, env)
		var out, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &stderr
		proctest.Start(t, cmd, 60*time.Second)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("the SDK's client: %v; stderr %q", err, stderr.String())
		}
		return strings.TrimSpace(out.String())
	}
	direct := run(nil, agentCmd)
	recv := otlptest.StartGRPC(t)
	through := run([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + agentCmd}, binary, "acp")
	if through != direct {
		t.Errorf("the client got other answers through cursor-otel:\n%s\ndirectly:\n%s", through, direct)
	}
	var answers struct {
		SessionID string   `json:"sessionId"`
		Stops     []string `json:"stops"`
	}
	if err := json.Unmarshal([]byte(direct), &answers); err != nil || strings.Join(answers.Stops, " ") != "end_turn cancelled end_turn" {
		t.Fatalf("the SDK's session: %s (%v)", direct, err)
	}
	spans := waitSpans(t, recv, "three turns", func(s []golden.Span) bool { return len(spansNamed(s, "invoke_agent sdk-agent")) == 3 })
	turns := spansNamed(spans, "invoke_agent sdk-agent")
	slicesSortByStart(turns)
	for i, want := range []struct{ finish, cost string }{{`["end_turn"]`, "0.25"}, {`["cancelled"]`, ""}, {`["end_turn"]`, "0.25"}} {
		r := turns[i]
		if got := value(r, "gen_ai.response.finish_reasons"); got != want.finish || r.Status == "Error" {
			t.Errorf("turn %d: finish %s status %q %q, want %s", i+1, got, r.Status, r.StatusMessage, want.finish)
		}
		if got := value(r, "gen_ai.usage.cost"); got != want.cost || want.cost != "" && value(r, "cursor.usage.cost_currency") != "EUR" {
			t.Errorf("turn %d: cost %q %s, want %q EUR", i+1, got, value(r, "cursor.usage.cost_currency"), want.cost)
		}
		if value(r, "gen_ai.agent.version") != "2.4.0" || value(r, "cursor.acp.client.name") != "sdk-client" || value(r, "gen_ai.conversation.id") != answers.SessionID {
			t.Errorf("turn %d: who: %v", i+1, r.Attributes)
		}
	}
	if ttft := value(turns[0], "cursor.time_to_first_token_ms"); ttft == "" {
		t.Errorf("no time to first token")
	}
	// The first turn's tools: t1's kind came late, each read under the tool naming its file.
	byID := map[string]golden.Span{}
	for _, s := range spans {
		if s.TraceID == turns[0].TraceID && strings.HasPrefix(s.Name, "execute_tool ") {
			byID[value(s, "gen_ai.tool.call.id")] = s
		}
	}
	if byID["t1"].Name != "execute_tool search" || byID["t2"].Name != "execute_tool read" {
		t.Errorf("the tools: t1 %q, t2 %q", byID["t1"].Name, byID["t2"].Name)
	}
	for _, s := range spansNamed(spans, "fs/read_text_file") {
		if s.TraceID != turns[0].TraceID {
			continue
		}
		want := map[string]string{"/w/a.txt": "t1", "/w/b.txt": "t2"}[value(s, "cursor.tool.path")]
		if s.ParentID != byID[want].SpanID {
			t.Errorf("the read of %s is not under %s", value(s, "cursor.tool.path"), want)
		}
	}
}
