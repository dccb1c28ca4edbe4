package synth

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// shape is what one generated session is made of.
type shape struct {
	modelCalls     int // model calls, each ending in its tools
	thinkingDeltas int // thinking deltas before each model call's text
	tools          int // parallel tool calls per model call
	outputBytes    int // bytes of output each shell tool returns
}

// Counts says what was written.
type Counts struct {
	Bytes     int64
	Lines     int
	Sessions  int
	ToolCalls int // tool calls in generated sessions (recordings count their own)
}

// writeSession writes one session of the given shape, its id made from n.
func writeSession(w io.Writer, n int, s shape) (Counts, error) {
	g := generator{w: bufio.NewWriterSize(w, 64<<10), sid: fmt.Sprintf("5b4450f4-3204-42b1-b082-%012x", n), t: 1790000000000 + int64(n)*1000}
	g.session(s)
	if err := g.w.Flush(); err != nil {
		return Counts{}, fmt.Errorf("write session: %w", err)
	}
	return Counts{Bytes: g.bytes, Lines: g.lines, Sessions: 1, ToolCalls: s.modelCalls * s.tools}, nil
}

// Mix writes at least size bytes of whole sessions to w: each recording in
// turn, then a thinking-heavy, a tool-heavy and a balanced session, over
// again. recorded is what one pass of the recordings holds (bytes, lines,
// sessions, tool calls), counted by the caller.
func Mix(w io.Writer, size int64, recordings [][]byte, recorded Counts) (Counts, error) {
	var total Counts
	add := func(c Counts) {
		total.Bytes += c.Bytes
		total.Lines += c.Lines
		total.Sessions += c.Sessions
		total.ToolCalls += c.ToolCalls
	}
	for n := 0; total.Bytes < size; n++ {
		for _, r := range recordings {
			if _, err := w.Write(r); err != nil {
				return total, fmt.Errorf("write recording: %w", err)
			}
		}
		add(recorded)
		// Thinking-heavy, tool-heavy and balanced: what a stream of many CI
		// runs is made of.
		for i, s := range []shape{
			{modelCalls: 20, thinkingDeltas: 400, tools: 1, outputBytes: 300},
			{modelCalls: 30, thinkingDeltas: 4, tools: 8, outputBytes: 6000},
			{modelCalls: 40, thinkingDeltas: 40, tools: 2, outputBytes: 2000},
		} {
			c, err := writeSession(w, 3*n+i, s)
			if err != nil {
				return total, err
			}
			add(c)
		}
	}
	return total, nil
}

type generator struct {
	w     *bufio.Writer
	sid   string
	t     int64
	bytes int64
	lines int
}

func (g *generator) line(v any) {
	out, _ := json.Marshal(v)
	g.w.Write(out)
	g.w.WriteByte('\n')
	g.bytes += int64(len(out)) + 1
	g.lines++
}

func (g *generator) session(s shape) {
	t0 := g.t
	g.line(map[string]any{"type": "system", "subtype": "init", "apiKeySource": "login", "cwd": "/builds/acme/app", "session_id": g.sid, "model": "Auto", "permissionMode": "default"})
	g.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Make the build green."}}}, "session_id": g.sid})
	output := strings.Repeat("ok  \tgithub.com/acme/app/pkg/module\t0.412s\n", max(1, s.outputBytes/44))
	for i := 0; i < s.modelCalls; i++ {
		mc := fmt.Sprintf("%s-%d", g.sid, i)
		for range s.thinkingDeltas {
			g.t += 12
			g.line(delta(" considering the failing test", g.sid, g.t))
		}
		g.t += 20
		g.line(map[string]any{"type": "thinking", "subtype": "completed", "session_id": g.sid, "timestamp_ms": g.t})
		g.t += 200
		g.line(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Running the tests."}}}, "session_id": g.sid, "model_call_id": mc, "timestamp_ms": g.t})
		start := g.t
		for k := range s.tools {
			id := fmt.Sprintf("call_%d_%d\nfc_%08x", i, k, i)
			args := map[string]any{"command": fmt.Sprintf("go test ./pkg/m%d/...", k), "workingDirectory": "", "timeout": 300000, "toolCallId": id}
			g.line(map[string]any{"type": "tool_call", "subtype": "started", "call_id": id, "model_call_id": mc, "session_id": g.sid, "timestamp_ms": start + int64(k),
				"tool_call": map[string]any{"shellToolCall": map[string]any{"args": args}, "toolCallId": id, "startedAtMs": fmt.Sprint(start + int64(k))}})
		}
		// Parallel calls complete in reverse order.
		for k := s.tools - 1; k >= 0; k-- {
			id := fmt.Sprintf("call_%d_%d\nfc_%08x", i, k, i)
			done := start + 500 + int64(s.tools-k)*300
			args := map[string]any{"command": fmt.Sprintf("go test ./pkg/m%d/...", k), "workingDirectory": "", "timeout": 300000, "toolCallId": id}
			result := map[string]any{"success": map[string]any{"command": args["command"], "exitCode": 0, "stdout": output, "stderr": "", "executionTime": done - start}}
			g.line(map[string]any{"type": "tool_call", "subtype": "completed", "call_id": id, "model_call_id": mc, "session_id": g.sid, "timestamp_ms": done,
				"tool_call": map[string]any{"shellToolCall": map[string]any{"args": args, "result": result}, "toolCallId": id, "startedAtMs": fmt.Sprint(start + int64(k)), "completedAtMs": fmt.Sprint(done)}})
		}
		g.t = start + 500 + int64(s.tools+1)*300
	}
	g.line(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "The build is green."}}}, "session_id": g.sid})
	g.line(map[string]any{"type": "result", "subtype": "success", "duration_ms": g.t - t0, "duration_api_ms": 1000, "is_error": false, "result": "The build is green.", "session_id": g.sid,
		"usage": map[string]any{"inputTokens": 48210, "outputTokens": 1876, "cacheReadTokens": 0, "cacheWriteTokens": 0}})
}

// Recordings reads the files matching the patterns, each made to end in a
// newline so that they can follow one another in a Mix.
func Recordings(patterns ...string) ([][]byte, error) {
	var out [][]byte
	for _, pattern := range patterns {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			return nil, fmt.Errorf("recordings %s: %w", pattern, err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, fmt.Errorf("read recording: %w", err)
			}
			if len(b) > 0 && b[len(b)-1] != '\n' {
				b = append(b, '\n')
			}
			out = append(out, b)
		}
	}
	return out, nil
}
