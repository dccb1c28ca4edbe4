package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// teamStream writes a stream whose session runs in dir: an edit that
// adds 3 lines and removes 1, a write of 4 lines, and a shell call the
// person is asked about, rejects after 0.4 s, and the agent reports
// rejected. Its times are rebased to the run's (FAKEAGENT_REBASE).
func teamStream(t *testing.T, dir string) string {
	t.Helper()
	const sid = "5e55a0e1-team-4c8e-9f10-2a6b3c4d5e6f"
	at := func(ms int) string { return fmt.Sprint(1790000000000 + ms) }
	lines := []string{
		`{"type":"system","subtype":"init","apiKeySource":"env","cwd":` + quote(dir) + `,"session_id":"` + sid + `","model":"gpt-5","permissionMode":"default"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Fix it"}]},"session_id":"` + sid + `"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Editing."}]},"session_id":"` + sid + `","model_call_id":"mc-0","timestamp_ms":` + at(100) + `}`,
		`{"type":"tool_call","subtype":"started","call_id":"t-edit","tool_call":{"editToolCall":{"args":{"path":"main.go"}},"toolCallId":"t-edit","startedAtMs":"` + at(110) + `"},"model_call_id":"mc-0","session_id":"` + sid + `","timestamp_ms":` + at(110) + `}`,
		`{"type":"tool_call","subtype":"completed","call_id":"t-edit","tool_call":{"editToolCall":{"args":{"path":"main.go"},"result":{"success":{"path":"main.go","linesAdded":3,"linesRemoved":1}}},"toolCallId":"t-edit","startedAtMs":"` + at(110) + `","completedAtMs":"` + at(150) + `"},"model_call_id":"mc-0","session_id":"` + sid + `","timestamp_ms":` + at(150) + `}`,
		`{"type":"tool_call","subtype":"started","call_id":"t-write","tool_call":{"writeToolCall":{"args":{"path":"new.go"}},"toolCallId":"t-write","startedAtMs":"` + at(160) + `"},"model_call_id":"mc-0","session_id":"` + sid + `","timestamp_ms":` + at(160) + `}`,
		`{"type":"tool_call","subtype":"completed","call_id":"t-write","tool_call":{"writeToolCall":{"args":{"path":"new.go"},"result":{"success":{"path":"new.go","linesCreated":4,"fileSize":40}}},"toolCallId":"t-write","startedAtMs":"` + at(160) + `","completedAtMs":"` + at(180) + `"},"model_call_id":"mc-0","session_id":"` + sid + `","timestamp_ms":` + at(180) + `}`,
		`{"type":"tool_call","subtype":"started","call_id":"t-rm","tool_call":{"shellToolCall":{"args":{"command":"rm -rf build/"}},"toolCallId":"t-rm","startedAtMs":"` + at(200) + `"},"model_call_id":"mc-0","session_id":"` + sid + `","timestamp_ms":` + at(200) + `}`,
		`{"type":"interaction_query","subtype":"request","id":7,"query":{"shellRequestQuery":{"command":"rm -rf build/"}},"session_id":"` + sid + `","timestamp_ms":` + at(210) + `}`,
		`{"type":"interaction_query","subtype":"response","id":7,"response":{"shellRequestResponse":{"rejected":{}}},"session_id":"` + sid + `","timestamp_ms":` + at(610) + `}`,
		`{"type":"tool_call","subtype":"completed","call_id":"t-rm","tool_call":{"shellToolCall":{"args":{"command":"rm -rf build/"},"result":{"rejected":{"command":"rm -rf build/","reason":"the person said no"}}},"toolCallId":"t-rm","startedAtMs":"` + at(200) + `","completedAtMs":"` + at(620) + `"},"model_call_id":"mc-0","session_id":"` + sid + `","timestamp_ms":` + at(620) + `}`,
		`{"type":"result","subtype":"success","duration_ms":700,"duration_api_ms":700,"is_error":false,"result":"Done.","session_id":"` + sid + `","request_id":"r-team","usage":{"inputTokens":1000,"outputTokens":200,"cacheReadTokens":500,"cacheWriteTokens":50},"timestamp_ms":` + at(700) + `}`,
	}
	path := filepath.Join(t.TempDir(), "team.ndjson")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// gitRepo makes a work tree whose origin is acme/widgets.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	config := "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:acme/widgets.git\n"
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// teamChecks are what every mode's session with edits, decisions and a
// wait must give.
type teamChecks struct {
	surface        string
	added, removed float64
	accept, reject float64
	waits          uint64 // permission waits
	extra          []string
}

func checkTeam(t *testing.T, points map[string][]point, want teamChecks) {
	t.Helper()
	value := func(name string, with ...string) float64 {
		_, v := counts(points[name], append(with, "cursor.surface="+want.surface)...)
		return v
	}
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"lines added", value("cursor.lines_of_code", "cursor.lines.type=added"), want.added},
		{"lines removed", value("cursor.lines_of_code", "cursor.lines.type=removed"), want.removed},
		{"accepted", value("cursor.tool.decisions", "cursor.decision=accept"), want.accept},
		{"rejected", value("cursor.tool.decisions", "cursor.decision=reject"), want.reject},
	} {
		if c.got != c.want {
			t.Errorf("%s: %s %g, want %g\n%v", want.surface, c.what, c.got, c.want, points)
		}
	}
	// Each permission wait of 0.4 s is recorded as about that.
	n, waited := counts(points["cursor.wait.duration"], "cursor.wait.kind=permission", "cursor.surface="+want.surface)
	if n != want.waits || n > 0 && (waited/float64(n) < 0.35 || waited/float64(n) > 1.5) {
		t.Errorf("%s: %d permission waits of %g s in all, want %d of 0.4 s each", want.surface, n, waited, want.waits)
	}
	// Active time is the turns' duration less the waits.
	_, wall := counts(points["gen_ai.client.operation.duration"], "gen_ai.operation.name=invoke_agent", "cursor.surface="+want.surface)
	active := value("cursor.agent.active_time")
	if active <= 0 || active > wall-waited+0.01 || want.waits > 0 && active > wall-0.35*float64(want.waits) {
		t.Errorf("%s: active time %g s, turns %g s, waits %g s", want.surface, active, wall, waited)
	}
	for name, ps := range points {
		for _, p := range ps {
			for _, w := range append([]string{"cursor.surface=" + want.surface}, want.extra...) {
				if !strings.Contains(","+p.attrs+",", ","+w+",") {
					t.Errorf("%s point %s: no %s", name, p.attrs, w)
				}
			}
		}
	}
	bounded(t, points)
}

// bounded fails for a metric attribute holding a session or trace id, a
// path, a command or a prompt.
func bounded(t *testing.T, points map[string][]point) {
	t.Helper()
	for name, ps := range points {
		for _, p := range ps {
			for _, kv := range strings.Split(p.attrs, ",") {
				k, v, _ := strings.Cut(kv, "=")
				if strings.ContainsAny(v, `/\`) || strings.Contains(v, "team") || strings.Contains(v, "rm -rf") || strings.Contains(v, "Fix it") ||
					k == "gen_ai.conversation.id" || k == "cursor.cwd" || k == "session.id" {
					t.Errorf("%s: attribute %s names a session, a path, a command or a prompt", name, kv)
				}
			}
		}
	}
}

// A wrapped run in a git repository with an origin: its edits' lines,
// one decision per decided tool, the wait on the person, its active
// time, on points that say cli and name the repository; the same
// stream replayed gives the same figures.
func TestTeamMetricsOfAWrappedRun(t *testing.T) {
	repo := gitRepo(t)
	stream := teamStream(t, repo)
	recv := otlptest.StartGRPC(t)
	w := runWrapped(t, wrapSpec{args: streamArgs(), endpoint: recv.Endpoint,
		env: []string{"FAKEAGENT_STREAM=" + stream, "FAKEAGENT_SPEED=1", "FAKEAGENT_REBASE=1"}})
	if w.exit != 0 {
		t.Fatalf("exit %d, stderr %q", w.exit, w.stderr)
	}
	_, points, _ := exportedMetrics(t, recv.Metrics())
	want := teamChecks{surface: "cli", added: 7, removed: 1, reject: 1, waits: 1,
		extra: []string{"vcs.repository.name=widgets", "gen_ai.request.model=gpt-5"}}
	checkTeam(t, points, want)
	checkTokens(t, points)

	replayed := otlptest.StartGRPC(t)
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + replayed.Endpoint}, nil, "replay", "--quiet", stream)
	if r.exit != 0 || r.stderr != "" {
		t.Fatalf("replay: exit %d, stderr %q", r.exit, r.stderr)
	}
	_, points, _ = exportedMetrics(t, replayed.Metrics())
	checkTeam(t, points, want)
}

// A wrapped run in CI says ci, and CI's repository.
func TestTeamMetricsInCI(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	w := runWrapped(t, wrapSpec{args: streamArgs(), endpoint: recv.Endpoint,
		env: []string{"FAKEAGENT_STREAM=" + teamStream(t, t.TempDir()), "GITHUB_ACTIONS=true", "GITHUB_REPOSITORY=acme/gadgets", "GITHUB_RUN_ID=1"}})
	if w.exit != 0 {
		t.Fatalf("exit %d, stderr %q", w.exit, w.stderr)
	}
	_, points, _ := exportedMetrics(t, recv.Metrics())
	if n, _ := counts(points["cursor.tool.decisions"], "cursor.surface=ci", "vcs.repository.name=gadgets"); len(points) == 0 || n != 0 {
		t.Errorf("points: %v", points)
	}
	if _, v := counts(points["cursor.tool.decisions"], "cursor.surface=ci", "vcs.repository.name=gadgets"); v != 1 {
		t.Errorf("decisions in CI: %g, want 1: %v", v, points["cursor.tool.decisions"])
	}
}

// checkTokens: the inference usage counters and the old histogram agree.
func checkTokens(t *testing.T, points map[string][]point) {
	t.Helper()
	_, in := counts(points["gen_ai.client.token.usage"], "gen_ai.token.type=input")
	_, out := counts(points["gen_ai.client.token.usage"], "gen_ai.token.type=output")
	_, newIn := counts(points["gen_ai.client.inference.usage.input_tokens"], "gen_ai.token.modality=unknown")
	_, newOut := counts(points["gen_ai.client.inference.usage.output_tokens"])
	if in == 0 || in != newIn || out != newOut {
		t.Errorf("tokens: histogram %g in, %g out; counters %g in, %g out", in, out, newIn, newOut)
	}
}

// An ACP session whose agent reports its cost in EUR: the diff's lines,
// an accepted edit and a rejected shell call, two permission waits of
// 0.4 s, the cost in EUR, on points that say acp and the editor's name.
func TestTeamMetricsOfAnACPSession(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	e := startEditor(t, binary, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeACP}, "acp")
	e.permissionDelay = 400 * time.Millisecond
	if a := e.request("initialize", map[string]any{"protocolVersion": 1, "clientInfo": map[string]any{"name": "zed", "version": "0.200.0"},
		"clientCapabilities": map[string]any{}}); a.Error != nil || a.eof {
		t.Fatalf("initialize: %+v", a)
	}
	a := e.request("session/new", map[string]any{"cwd": "/w", "mcpServers": []any{}})
	var session struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(a.Result, &session); err != nil || session.SessionID == "" {
		t.Fatalf("session/new: %s %v", a.Result, err)
	}
	sid := session.SessionID
	if p := e.prompt(sid, "team", nil); p.Error != nil || p.eof {
		t.Fatalf("team turn: %+v", p)
	}
	if code := e.close(); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, e.stderr.String())
	}
	_, points, _ := exportedMetrics(t, recv.Metrics())
	checkTeam(t, points, teamChecks{surface: "acp", added: 3, removed: 1, accept: 1, reject: 1, waits: 2,
		extra: []string{"cursor.client.name=zed"}})
	checkTokens(t, points)
	if _, eur := counts(points["cursor.usage.cost"], "cursor.usage.cost_currency=EUR"); math.Abs(eur-0.25) > 1e-9 {
		t.Errorf("cost in EUR %g, want 0.25: %v", eur, points["cursor.usage.cost"])
	}
	if n, _ := counts(points["cursor.usage.cost"], "cursor.usage.cost_currency=USD"); n != 0 || len(points["cursor.usage.cost"]) != 1 {
		t.Errorf("cost points: %v", points["cursor.usage.cost"])
	}
}

// A hooks conversation: afterFileEdit's edits and a refusal, on points
// that say hooks. (The hooks see no wait on the person: Cursor runs no
// hook while it asks.)
func TestTeamMetricsOfHooks(t *testing.T) {
	t.Parallel() // waits on the hooks' grace and the delivery's timers, not the CPU
	recv := otlptest.StartGRPC(t)
	state := t.TempDir()
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + state,
		"CURSOR_OTEL_METRICS_USER=hash", "CURSOR_OTEL_METRICS_USER_SALT=team-salt"}
	head := `"conversation_id":"conv-team","generation_id":"gen-1","model":"claude-4.6-sonnet","workspace_roots":["/home/dev/w"],"user_email":"dev@acme.com"`
	events := []string{
		`{"hook_event_name":"sessionStart",` + head + `,"composer_mode":"agent"}`,
		`{"hook_event_name":"beforeSubmitPrompt",` + head + `,"prompt":"Fix it"}`,
		// One edit told both ways: its lines count once.
		`{"hook_event_name":"preToolUse",` + head + `,"tool_name":"Edit","tool_use_id":"tu-edit","tool_input":{"file_path":"main.go","old_string":"b\n","new_string":"B\nC\n"}}`,
		`{"hook_event_name":"afterFileEdit",` + head + `,"file_path":"/home/dev/w/main.go","edits":[{"old_string":"a\nb\n","new_string":"a\nB\nC\n"}]}`,
		`{"hook_event_name":"postToolUse",` + head + `,"tool_name":"Edit","tool_use_id":"tu-edit","tool_input":{"file_path":"main.go","old_string":"b\n","new_string":"B\nC\n"},"tool_output":"{\"linesAdded\":2,\"linesRemoved\":1}","duration":40}`,
		`{"hook_event_name":"preToolUse",` + head + `,"tool_name":"Shell","tool_use_id":"tu-rm","tool_input":{"command":"rm -rf build"}}`,
		`{"hook_event_name":"postToolUseFailure",` + head + `,"tool_name":"Shell","tool_use_id":"tu-rm","tool_input":{"command":"rm -rf build"},"failure_type":"permission_denied","error_message":"denied"}`,
		`{"hook_event_name":"stop",` + head + `,"status":"completed"}`,
	}
	runHooks(t, env, events)
	var points map[string][]point
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		// Polling: the hooks' turns are built and exported on their own.
		if _, points, _ = exportedMetrics(t, recv.Metrics()); len(points["cursor.sessions"]) > 0 {
			break
		}
	}
	if n, _ := counts(points["cursor.tool.duration"], "gen_ai.tool.name=edit"); n != 2 {
		t.Errorf("%d edit tool calls, want the edit told twice", n)
	}
	// The person, opted in, as the salted hash alone.
	sum := sha256.Sum256([]byte("team-salt\x00dev@acme.com"))
	checkTeam(t, points, teamChecks{surface: "hooks", added: 2, removed: 1, reject: 1,
		extra: []string{"user.hash=" + hex.EncodeToString(sum[:])}})
	for name, ps := range points {
		for _, p := range ps {
			if strings.Contains(p.attrs, "acme.com") {
				t.Errorf("%s: %s names the address", name, p.attrs)
			}
		}
	}
	if b, err := exec.Command("grep", "-r", "acme.com", state).Output(); len(b) > 0 {
		t.Errorf("the state directory holds the address (%v): %s", err, b)
	}
}
