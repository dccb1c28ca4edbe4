package e2e

import (
	"encoding/json"
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files")

// Secrets in the Windows-shaped inputs: the shapes the redaction rules
// know, as a PowerShell or cmd.exe line sets them.
const (
	windowsGitHubToken = "ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"
	windowsSecrets     = "s3cr3t-v4lue-91x"
	windowsCwd         = `C:\Users\Ada Lovelace\source\queue-service`
	windowsShare       = `\\build01\share\queue-service`
)

// A stream as cursor-agent writes it on Windows: drive letters, a UNC
// share, backslashes, PowerShell and cmd.exe commands, CRLF inside the
// texts. Replayed with LF or CRLF line endings, it gives the same tree
// and the same trace, paths shown as given and secrets redacted.
func TestReplayWindowsShapedStream(t *testing.T) {
	b, err := os.ReadFile("test/e2e/testdata/windows/session.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	stream := strings.ReplaceAll(string(b), "{{GITHUB_TOKEN}}", windowsGitHubToken)
	traceID := regexp.MustCompile(`^trace [0-9a-f]{32}`)
	for _, tt := range []struct{ name, stream string }{
		{"LF", stream},
		{"CRLF", strings.ReplaceAll(stream, "\n", "\r\n")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recv := otlptest.StartGRPC(t)
			r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint}, strings.NewReader(tt.stream), "replay", "-")
			if r.exit != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.exit, r.stderr)
			}
			tree := traceID.ReplaceAllString(r.stdout, "trace ID")
			golden.Check(t, "test/e2e/testdata/windows/session.tree.golden", tree, *updateGolden)
			spans := golden.FromOTLP(recv.Spans())
			rendered := golden.Render(spans)
			golden.Check(t, "test/e2e/testdata/windows/session.golden", rendered, *updateGolden)

			for _, secret := range []string{windowsGitHubToken, windowsSecrets} {
				if strings.Contains(tree+rendered, secret) {
					t.Errorf("secret %q shown", secret)
				}
			}
			if strings.Contains(tree, "\r") {
				t.Errorf("a carriage return reached the terminal: %q", tree)
			}
			checkAttrs(t, spans, []wantAttr{
				{"invoke_agent cursor-agent", "cursor.cwd", windowsCwd},
				{"execute_tool shell", "cursor.tool.working_directory", windowsShare},
				{"execute_tool shell", "cursor.tool.command", `$env:GITHUB_TOKEN = [REDACTED]; go test .\pkg\queue`},
				{"execute_tool shell", "cursor.tool.working_directory", `D:\work\queue-service`},
				{"execute_tool shell", "cursor.tool.command", `set API_TOKEN=[REDACTED] && go test .\pkg\queue`},
				{"execute_tool read", "cursor.tool.path", windowsCwd + `\pkg\queue\queue_test.go`},
				{"execute_tool grep", "cursor.tool.path", `pkg\queue`},
				{"execute_tool edit", "cursor.tool.path", `pkg\queue\queue_test.go`},
			})
		})
	}
}

// Hook payloads as a Windows program may write them: indented JSON with
// CRLF line endings, Windows paths in every field. Each is answered as
// anywhere, and the trace carries the paths as given.
func TestHooksWindowsShapedPayloads(t *testing.T) {
	t.Parallel() // waits on the hooks' grace and the delivery's timers, not the CPU
	recv := otlptest.StartGRPC(t)
	state := t.TempDir()
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + state, "OTEL_METRICS_EXPORTER=none"}
	command := `set GITHUB_TOKEN=` + windowsGitHubToken + ` && dir /s /b "` + windowsCwd + `\pkg" | findstr queue`
	readPath := windowsCwd + `\pkg\queue\queue.go`
	common := map[string]any{"conversation_id": "conv-win-1", "model": "claude-4.6-sonnet", "cursor_version": "2.4.21",
		"workspace_roots": []string{windowsCwd}}
	shell := map[string]any{"tool_name": "Shell", "tool_use_id": "toolu_1", "cwd": windowsShare,
		"tool_input": map[string]any{"command": command, "working_directory": windowsShare}}
	read := map[string]any{"tool_name": "Read", "tool_use_id": "toolu_2", "tool_input": map[string]any{"file_path": readPath}}
	var events []string
	for _, ev := range []map[string]any{
		{"hook_event_name": "sessionStart", "generation_id": ""},
		{"hook_event_name": "beforeSubmitPrompt", "generation_id": "gen-1", "prompt": "Why does the test fail?\r\nOnly here."},
		with(shell, map[string]any{"hook_event_name": "preToolUse", "generation_id": "gen-1"}),
		with(shell, map[string]any{"hook_event_name": "postToolUse", "generation_id": "gen-1", "duration": 1500,
			"tool_output": `{"exitCode":0,"stdout":"` + strings.ReplaceAll(readPath, `\`, `\\`) + `\r\n"}`}),
		with(read, map[string]any{"hook_event_name": "preToolUse", "generation_id": "gen-1"}),
		with(read, map[string]any{"hook_event_name": "postToolUse", "generation_id": "gen-1", "duration": 20}),
		{"hook_event_name": "afterAgentResponse", "generation_id": "gen-1", "text": "It opens a path under C:\\Temp."},
		{"hook_event_name": "stop", "generation_id": "gen-1", "status": "completed"},
		{"hook_event_name": "sessionEnd", "generation_id": "", "reason": "window_close"},
	} {
		b, err := json.MarshalIndent(with(common, ev), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, strings.ReplaceAll(string(b), "\n", "\r\n"))
	}
	runHooks(t, env, events)
	spans := waitForSpans(t, recv, 4, 15*time.Second)
	if len(spans) != 4 {
		t.Fatalf("%d spans, want 4 (the turn's root, with the conversation's end; chat, shell, read): %v", len(spans), spanNames(spans))
	}
	checkAttrs(t, spans, []wantAttr{
		{"invoke_agent cursor-agent", "cursor.cwd", windowsCwd},
		{"invoke_agent cursor-agent", "cursor.session.end_reason", "window_close"},
		{"execute_tool shell", "cursor.tool.working_directory", windowsShare},
		{"execute_tool shell", "cursor.tool.command", `set GITHUB_TOKEN=[REDACTED] && dir /s /b "` + windowsCwd + `\pkg" | findstr queue`},
		{"execute_tool read", "cursor.tool.path", readPath},
	})
	for _, s := range spans {
		for _, kv := range s.Attributes {
			if strings.Contains(kv.Value, windowsGitHubToken) {
				t.Errorf("%s %s shows the token", s.Name, kv.Key)
			}
		}
	}
}

// with is a copy of a with b's entries over it.
func with(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

type wantAttr struct{ span, key, value string }

// checkAttrs says each wanted attribute is on some span of that name (a
// name may be on several spans).
func checkAttrs(t *testing.T, spans []golden.Span, want []wantAttr) {
	t.Helper()
	for _, w := range want {
		var got []string
		for _, s := range spans {
			if s.Name == w.span {
				got = append(got, value(s, w.key))
			}
		}
		if !slices.Contains(got, w.value) {
			t.Errorf("%s %s = %q, want %q", w.span, w.key, got, w.value)
		}
	}
}
