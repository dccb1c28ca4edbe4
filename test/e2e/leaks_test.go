package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/golden"
)

// Each test here is a leak an adversary found in the first version; each
// fails on it.

// toolCall is one tool call for a made-up stream: its kind as the stream
// names it (shellToolCall), its arguments and its result, as JSON values.
type toolCall struct {
	kind         string
	args, result any
}

// toolStream writes a session that makes the calls, one after the other.
func toolStream(t *testing.T, calls ...toolCall) string {
	t.Helper()
	lines := []string{`{"type":"system","subtype":"init","session_id":"leak-1","model":"Auto","cwd":"/builds/acme"}`}
	at := int64(1790000001000)
	for i, c := range calls {
		args, _ := json.Marshal(map[string]any{c.kind: map[string]any{"args": c.args}})
		result, _ := json.Marshal(map[string]any{c.kind: map[string]any{"args": c.args, "result": c.result}})
		lines = append(lines,
			fmt.Sprintf(`{"type":"tool_call","subtype":"started","call_id":"c%d","tool_call":%s,"model_call_id":"m-0","session_id":"leak-1","timestamp_ms":%d}`, i, args, at),
			fmt.Sprintf(`{"type":"tool_call","subtype":"completed","call_id":"c%d","tool_call":%s,"model_call_id":"m-0","session_id":"leak-1","timestamp_ms":%d}`, i, result, at+100))
		at += 200
	}
	lines = append(lines, fmt.Sprintf(`{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"leak-1","timestamp_ms":%d}`, at))
	path := filepath.Join(t.TempDir(), "stream.ndjson")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// exported is every text a trace holds, attribute values unquoted.
func exported(spans []golden.Span) string {
	var texts []string
	for _, s := range spans {
		texts = append(texts, s.Name, s.StatusMessage)
		for _, kv := range s.Attributes {
			texts = append(texts, value(s, kv.Key))
		}
		for _, e := range s.Events {
			texts = append(texts, e.Name)
			for _, kv := range e.Attributes {
				texts = append(texts, kv.Value)
			}
		}
	}
	return strings.Join(texts, "\n")
}

// Without --capture-content no prompt leaves: not in the command line, not
// in a summary. With it, the command line is whole.
func TestPromptNeverLeaves(t *testing.T) {
	const prompt = "CONFIDENTIAL: acquire AcmeCorp for $4B"
	for _, capture := range []bool{false, true} {
		t.Run(fmt.Sprint("capture=", capture), func(t *testing.T) {
			dir := t.TempDir()
			md, js := filepath.Join(dir, "summary.md"), filepath.Join(dir, "summary.json")
			w := runWrapped(t, wrapSpec{
				args: streamArgs("--model", "gpt-5", prompt),
				env: []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", fmt.Sprint("CURSOR_OTEL_CAPTURE_CONTENT=", capture),
					"CURSOR_OTEL_SUMMARY=" + md, "CURSOR_OTEL_SUMMARY_JSON=" + js},
			})
			line := value(sessionSpan(t, w.spans), "process.command_line")
			want := fakeAgent + " -p --output-format stream-json --model gpt-5 <prompt: 38 bytes>"
			if capture {
				want = fakeAgent + ` -p --output-format stream-json --model gpt-5 "CONFIDENTIAL: acquire AcmeCorp for $4B"`
			}
			if line != want {
				t.Errorf("command line\n %s\nwant\n %s", line, want)
			}
			if capture {
				return
			}
			if strings.Contains(exported(w.spans), "AcmeCorp") {
				t.Errorf("the prompt is in the trace")
			}
			for _, f := range []string{md, js} {
				if b, err := os.ReadFile(f); err != nil || strings.Contains(string(b), "AcmeCorp") {
					t.Errorf("%s: the prompt is in the summary (or none: %v)", f, err)
				}
			}
		})
	}
}

// With content captured, a secret inside a tool's JSON (a file read, a
// request body in a command) is masked in the arguments and the result,
// as it is in the command.
func TestSecretsInsideJSONNeverLeave(t *testing.T) {
	config := `{"client_secret": "cs_9f8e7d6c5b4a", "password": "hunter2hunter2", "apiKey": "ak_0123456789", "token": "tok_abcdef123456"}`
	curl := `curl -d '{"password":"pw-0a9b8c7d6e"}' https://api.example.com/login`
	stream := toolStream(t,
		toolCall{"readToolCall", map[string]any{"path": "config.json"}, map[string]any{"success": map[string]any{"content": config}}},
		toolCall{"shellToolCall", map[string]any{"command": curl}, map[string]any{"success": map[string]any{"exitCode": 0, "stdout": "ok"}}},
	)
	w := runWrapped(t, wrapSpec{args: streamArgs(), env: []string{"FAKEAGENT_STREAM=" + stream, "CURSOR_OTEL_CAPTURE_CONTENT=true"}})
	all := exported(w.spans)
	for _, secret := range []string{"cs_9f8e7d6c5b4a", "hunter2hunter2", "ak_0123456789", "tok_abcdef123456", "pw-0a9b8c7d6e"} {
		if strings.Contains(all, secret) {
			t.Errorf("%s is in the trace", secret)
		}
	}
	var results, args []string
	for _, s := range w.spans {
		if v := value(s, "gen_ai.tool.call.result"); v != "" {
			results = append(results, v)
		}
		if v := value(s, "gen_ai.tool.call.arguments"); v != "" {
			args = append(args, v)
		}
	}
	wantResult := `"content":"{\"client_secret\": \"[REDACTED]\", \"password\": \"[REDACTED]\", \"apiKey\": \"[REDACTED]\", \"token\": \"[REDACTED]\"}"`
	if len(results) != 2 || !strings.Contains(results[0], wantResult) {
		t.Errorf("results %q\nwant the first to hold %s", results, wantResult)
	}
	wantArgs := `curl -d '{\"password\":\"[REDACTED]\"}' https://api.example.com/login`
	if len(args) != 2 || !strings.Contains(args[1], wantArgs) {
		t.Errorf("arguments %q\nwant the second to hold %s", args, wantArgs)
	}
}

// The credentials cursor-otel was given to reach its collector are masked
// wherever they appear: here in a captured printenv.
func TestCollectorCredentialsNeverLeave(t *testing.T) {
	const key = "hcaik_01hq3kxyzABCDEFGHIJKL"
	printenv := "HOME=/root\nOTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=" + key + "\nPATH=/usr/bin\n"
	stream := toolStream(t, toolCall{"shellToolCall", map[string]any{"command": "printenv"},
		map[string]any{"success": map[string]any{"exitCode": 0, "stdout": printenv}}})
	w := runWrapped(t, wrapSpec{args: streamArgs(), env: []string{"FAKEAGENT_STREAM=" + stream, "CURSOR_OTEL_CAPTURE_CONTENT=true",
		"OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=" + key}})
	all := exported(w.spans)
	if strings.Contains(all, key) {
		t.Errorf("the collector's key is in the trace")
	}
	if !strings.Contains(all, `OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=[REDACTED]`) {
		t.Errorf("the printenv output is not in the trace, masked")
	}
}

// Credentials on command lines are masked without content capture (a
// command is metadata), the rest of the command readable.
func TestCommandLineCredentialsNeverLeave(t *testing.T) {
	commands := []struct{ command, want string }{
		{"curl -u admin:pa55w0rd https://api.example.com", "curl -u [REDACTED] https://api.example.com"},
		{"mysql -uroot -phunter2 shop", "mysql -uroot -p[REDACTED] shop"},
		{"docker login -u bot -p dckr_pat_Qw3rTy1234567890 registry.example.com", "docker login -u bot -p [REDACTED] registry.example.com"},
		{`curl -H "Cookie: session=7f3a9b2c1d; theme=dark" https://x`, `curl -H "Cookie: [REDACTED]" https://x`},
		{"MY_DB_PASS=s3cr3tpass ./run", "MY_DB_PASS=[REDACTED] ./run"},
		{"SESSION_TOKEN_PWD=abcdef12 make", "SESSION_TOKEN_PWD=[REDACTED] make"},
		{"echo wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLE12 | aws configure", "echo [REDACTED] | aws configure"},
	}
	var calls []toolCall
	for _, c := range commands {
		calls = append(calls, toolCall{"shellToolCall", map[string]any{"command": c.command}, map[string]any{"success": map[string]any{"exitCode": 0}}})
	}
	w := runWrapped(t, wrapSpec{args: streamArgs(), env: []string{"FAKEAGENT_STREAM=" + toolStream(t, calls...)}})
	var got []string
	for _, s := range w.spans {
		if c := value(s, "cursor.tool.command"); c != "" {
			got = append(got, c)
		}
	}
	if len(got) != len(commands) {
		t.Fatalf("%d commands in the trace, want %d: %q", len(got), len(commands), got)
	}
	for i, c := range commands {
		if got[i] != c.want {
			t.Errorf("command\n %s\nwant\n %s", got[i], c.want)
		}
	}
}

// Replay prints a recording's text shown, not acted on: an escape sequence
// in a command neither clears the screen nor retitles the window, in the
// tree or in the Markdown summary.
func TestReplayNeverActsOnTheTerminal(t *testing.T) {
	stream := toolStream(t, toolCall{"shellToolCall", map[string]any{"command": "printf '\x1b[2J\x1b[H'; echo \x1b]0;owned\x07 \u202e"},
		map[string]any{"success": map[string]any{"exitCode": 0}}})
	md := filepath.Join(t.TempDir(), "summary.md")
	r := runBinary(t, []string{"OTEL_TRACES_EXPORTER=none"}, nil, "replay", "--summary", md, stream)
	if strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07\u202e") {
		t.Errorf("control characters printed raw:\n%q\n%q", r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, `printf '\x1b[2J\x1b[H'; echo \x1b]0;owned\x07 \u202e`) {
		t.Errorf("the tree does not show the command, escaped:\n%s", r.stdout)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(string(b), "\x1b\x07\u202e") {
		t.Errorf("control characters in the summary:\n%q", b)
	}
}
