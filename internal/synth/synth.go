// Package synth generates large, realistic cursor-agent streams for
// benchmarks: many model calls, each with a thinking phase, a message and
// two parallel tool calls carrying kilobytes of output, in 2026's
// stream-json with its metadata fields.
package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Stream returns one session of the given number of model calls.
func Stream(modelCalls int) []byte {
	var b bytes.Buffer
	const sid = "5b4450f4-3204-42b1-b082-844f859df8c3"
	t := int64(1790000000000)
	line := func(v any) {
		out, _ := json.Marshal(v)
		b.Write(out)
		b.WriteByte('\n')
	}
	line(map[string]any{"type": "system", "subtype": "init", "apiKeySource": "login", "cwd": "/builds/acme/app", "session_id": sid, "model": "Auto", "permissionMode": "default"})
	line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Make the build green."}}}, "session_id": sid})
	output := strings.Repeat("ok  \tgithub.com/acme/app/pkg/module\t0.412s\n", 48) // ~2 KB
	content := strings.Repeat("func handler(w http.ResponseWriter, r *http.Request) {}\n", 150)
	for i := 0; i < modelCalls; i++ {
		mc := fmt.Sprintf("c0ffee00-1234-4abc-8def-0123456789ab-%d-ab12", i)
		for d := 0; d < 40; d++ {
			t += 12
			line(delta(" considering", sid, t))
		}
		t += 20
		line(map[string]any{"type": "thinking", "subtype": "completed", "session_id": sid, "timestamp_ms": t})
		t += 200
		line(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Running the tests and reading the handler."}}}, "session_id": sid, "model_call_id": mc, "timestamp_ms": t})
		shellID, readID := fmt.Sprintf("call_%d_shell\nfc_%08x", i, i), fmt.Sprintf("call_%d_read", i)
		shellArgs := map[string]any{"command": "go test ./...", "workingDirectory": "", "timeout": 300000, "toolCallId": shellID, "simpleCommands": []string{"go"}, "isBackground": false}
		readArgs := map[string]any{"path": "internal/server/handler.go", "toolCallId": readID}
		tool := func(sub, id, key string, args, result any, started, completed int64) {
			tc := map[string]any{key: map[string]any{"args": args}, "hookAdditionalContexts": []any{}, "toolCallId": id, "startedAtMs": fmt.Sprint(started)}
			if result != nil {
				tc[key].(map[string]any)["result"] = result
				tc["completedAtMs"] = fmt.Sprint(completed)
			}
			line(map[string]any{"type": "tool_call", "subtype": sub, "call_id": id, "tool_call": tc, "model_call_id": mc, "session_id": sid, "timestamp_ms": max(started, completed)})
		}
		tool("started", shellID, "shellToolCall", shellArgs, nil, t, 0)
		tool("started", readID, "readToolCall", readArgs, nil, t+5, 0)
		tool("completed", readID, "readToolCall", readArgs, map[string]any{"success": map[string]any{"content": content, "totalLines": 150, "fileSize": len(content)}}, t+5, t+90)
		tool("completed", shellID, "shellToolCall", shellArgs, map[string]any{"success": map[string]any{"command": "go test ./...", "exitCode": 0, "stdout": output, "stderr": "", "executionTime": 4100}}, t, t+4100)
		t += 4200
	}
	line(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "The build is green."}}}, "session_id": sid})
	line(map[string]any{"type": "result", "subtype": "success", "duration_ms": 1000, "duration_api_ms": 1000, "is_error": false, "result": "The build is green.", "session_id": sid, "request_id": "c0ffee00-1234-4abc-8def-0123456789ab",
		"usage": map[string]any{"inputTokens": 1, "outputTokens": 1, "cacheReadTokens": 0, "cacheWriteTokens": 0}})
	return b.Bytes()
}

// HugeLine returns a tool completion whose output is n bytes, on one line.
func HugeLine(n int) []byte {
	out, _ := json.Marshal(map[string]any{
		"type": "tool_call", "subtype": "completed", "call_id": "big",
		"tool_call": map[string]any{"shellToolCall": map[string]any{
			"args":   map[string]any{"command": "cat build.log"},
			"result": map[string]any{"success": map[string]any{"exitCode": 0, "stdout": strings.Repeat("x", n), "stderr": ""}},
		}},
	})
	return append(out, '\n')
}
