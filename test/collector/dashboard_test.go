package collector

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/filelock"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// The Team dashboard against real Prometheus, fed through the local
// collector by real sessions of all four surfaces: a wrapped run in a git
// work tree with an origin, its stream replayed, a hooks conversation and
// an ACP session whose agent reports its cost in EUR, each with edits and
// a decision. Every query of the dashboard returns data.
func TestTeamDashboard(t *testing.T) {
	store := otlptest.StartGRPC(t)
	c := newCollector(t, "otel-collector", "local.yaml", map[string]string{
		"OTLP_GRPC_ENDPOINT":              addr(freePort(t)),
		"OTLP_HTTP_ENDPOINT":              addr(freePort(t)),
		"PROMETHEUS_ENDPOINT":             addr(freePort(t)),
		"SPANMETRICS_PROMETHEUS_ENDPOINT": addr(freePort(t)),
		"TRACE_STORE_ENDPOINT":            strings.TrimPrefix(store.Endpoint, "http://"),
		"SAMPLING_PERCENTAGE":             "100",
	})
	c.start(t)
	prom := startPrometheusOn(t, []*collector{c})
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "CURSOR_OTEL_SPOOL=off",
		"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + c.env["OTLP_GRPC_ENDPOINT"], "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=delta",
		"CURSOR_OTEL_FLUSH_TIMEOUT=30s", "CURSOR_OTEL_AGENT=" + fakeAgent}
	run := func(stdin string, extra []string, args ...string) {
		t.Helper()
		cmd := exec.Command(cursorOtel, args...)
		cmd.Env = append(append([]string{}, env...), extra...)
		cmd.Stdin = strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("cursor-otel %v: %v\n%s", args, err, out)
		}
	}

	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, ".git", "config"), "[remote \"origin\"]\n\turl = https://github.com/acme/widgets.git\n")
	stream := filepath.Join(t.TempDir(), "team.ndjson")
	writeFile(t, stream, teamStream(repo))
	run("", []string{"FAKEAGENT_STREAM=" + stream, "FAKEAGENT_REBASE=1", "FAKEAGENT_SPEED=1"}, "-p", "--output-format", "stream-json", "fix it")
	run("", nil, "replay", "--now", "--quiet", stream)

	state := t.TempDir()
	t.Cleanup(func() { waitForDelivery(state) })
	head := `"conversation_id":"conv-team","generation_id":"gen-1","model":"claude-4.6-sonnet","workspace_roots":[` + quoted(repo) + `]`
	for _, ev := range []string{
		`{"hook_event_name":"sessionStart",` + head + `}`,
		`{"hook_event_name":"beforeSubmitPrompt",` + head + `,"prompt":"fix it"}`,
		`{"hook_event_name":"afterFileEdit",` + head + `,"file_path":"main.go","edits":[{"old_string":"a\n","new_string":"a\nb\n"}]}`,
		`{"hook_event_name":"preToolUse",` + head + `,"tool_name":"Shell","tool_use_id":"tu-1","tool_input":{"command":"rm -rf build"}}`,
		`{"hook_event_name":"postToolUseFailure",` + head + `,"tool_name":"Shell","tool_use_id":"tu-1","tool_input":{"command":"rm -rf build"},"failure_type":"permission_denied"}`,
		`{"hook_event_name":"stop",` + head + `,"status":"completed"}`,
	} {
		run(ev+"\n", []string{"CURSOR_OTEL_STATE_DIR=" + state}, "hook")
	}
	acpSession(t, append(append([]string{}, env...), "CURSOR_OTEL_AGENT="+fakeACP))

	// Every surface's sessions scraped first; then each query at once.
	surfaces := `count by (cursor_surface) (cursor_sessions_total{cursor_surface=~"cli|hooks|acp"})`
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Second) {
		if out, err := prom.query(surfaces); err == nil && len(out) == 3 {
			break
		} else if time.Now().After(end) {
			t.Fatalf("sessions of cli, hooks and acp did not all reach Prometheus: %+v (%v)", out, err)
		}
	}
	for _, q := range dashboardQueriesOf(t, "team.json") {
		out, err := prom.await(q, 15*time.Second)
		if err != nil || len(out) == 0 {
			t.Errorf("Team dashboard query returns no data: %s (%v)", q, err)
		}
	}
	for _, q := range []string{`cursor_lines_of_code_total{cursor_surface="cli", vcs_repository_name="widgets"}`,
		`cursor_usage_cost_total{cursor_surface="acp", cursor_usage_cost_currency="EUR"}`, `cursor_tool_decisions_total{cursor_surface="hooks"}`} {
		if out, err := prom.await(q, 15*time.Second); err != nil || len(out) == 0 {
			t.Errorf("no %s (%v)", q, err)
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func quoted(s string) string { b, _ := json.Marshal(s); return string(b) }

// teamStream is a stream whose session runs in dir: an edit, and a shell
// call the person rejects after 0.4 s.
func teamStream(dir string) string {
	const sid = "5e55a0e1-0000-4c8e-9f10-2a6b3c4d5e6f"
	at := func(ms int) string { return fmt.Sprint(1790000000000 + ms) }
	return strings.Join([]string{
		`{"type":"system","subtype":"init","cwd":` + quoted(dir) + `,"session_id":"` + sid + `","model":"gpt-5"}`,
		`{"type":"tool_call","subtype":"started","call_id":"e","tool_call":{"editToolCall":{"args":{"path":"main.go"}}},"model_call_id":"m","session_id":"` + sid + `","timestamp_ms":` + at(100) + `}`,
		`{"type":"tool_call","subtype":"completed","call_id":"e","tool_call":{"editToolCall":{"args":{"path":"main.go"},"result":{"success":{"linesAdded":3,"linesRemoved":1}}}},"model_call_id":"m","session_id":"` + sid + `","timestamp_ms":` + at(150) + `}`,
		`{"type":"tool_call","subtype":"started","call_id":"r","tool_call":{"shellToolCall":{"args":{"command":"rm -rf build/"}}},"model_call_id":"m","session_id":"` + sid + `","timestamp_ms":` + at(200) + `}`,
		`{"type":"interaction_query","subtype":"request","id":7,"query":{"shellRequestQuery":{"command":"rm -rf build/"}},"session_id":"` + sid + `","timestamp_ms":` + at(210) + `}`,
		`{"type":"interaction_query","subtype":"response","id":7,"response":{"shellRequestResponse":{"rejected":{}}},"session_id":"` + sid + `","timestamp_ms":` + at(610) + `}`,
		`{"type":"tool_call","subtype":"completed","call_id":"r","tool_call":{"shellToolCall":{"args":{"command":"rm -rf build/"},"result":{"rejected":{"reason":"no"}}}},"model_call_id":"m","session_id":"` + sid + `","timestamp_ms":` + at(620) + `}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"Done.","session_id":"` + sid + `","usage":{"inputTokens":1000,"outputTokens":200},"timestamp_ms":` + at(700) + `}`,
	}, "\n") + "\n"
}

// acpSession drives `cursor-otel acp` as a small editor: initialize (as
// zed), a session, the stand-in agent's team turn (its permission
// requests answered after 0.4 s, the shell call's rejected), then the end
// of stdin.
func acpSession(t *testing.T, env []string) {
	t.Helper()
	cmd := exec.Command(cursorOtel, "acp")
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReaderSize(outPipe, 1<<20)
	send := func(v any) {
		b, _ := json.Marshal(v)
		if _, err := in.Write(append(b, '\n')); err != nil {
			t.Fatalf("write to cursor-otel acp: %v", err)
		}
	}
	// request sends a request and answers the agent's until its answer.
	request := func(id int, method string, params any) json.RawMessage {
		send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		for {
			line, err := out.ReadBytes('\n')
			if err != nil {
				t.Fatalf("%s: the agent's output ended: %v", method, err)
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					ToolCall struct {
						ToolCallID string `json:"toolCallId"`
					} `json:"toolCall"`
				} `json:"params"`
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			switch {
			case m.Method == "session/request_permission":
				option := "allow-once"
				if strings.HasSuffix(m.Params.ToolCall.ToolCallID, "-reject") {
					option = "reject-once"
				}
				time.Sleep(400 * time.Millisecond) // the person deciding
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": option}}})
			case m.Method != "" && len(m.ID) > 0:
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{}})
			case string(m.ID) == fmt.Sprint(id):
				return m.Result
			}
		}
	}
	request(1, "initialize", map[string]any{"protocolVersion": 1, "clientInfo": map[string]any{"name": "zed"}, "clientCapabilities": map[string]any{}})
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(request(2, "session/new", map[string]any{"cwd": "/w", "mcpServers": []any{}}), &s); err != nil || s.SessionID == "" {
		t.Fatalf("session/new: %v", err)
	}
	request(3, "session/prompt", map[string]any{"sessionId": s.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "team"}}})
	in.Close()
	_, _ = out.WriteTo(nopWriter{})
	if err := cmd.Wait(); err != nil {
		t.Fatalf("cursor-otel acp: %v", err)
	}
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

// waitForDelivery waits, polling, until no background delivery of the
// hooks holds dir's lock (a few looks in a row), or 30 s: it outlives the
// hooks, and the test's directories go once it is done.
func waitForDelivery(dir string) {
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
