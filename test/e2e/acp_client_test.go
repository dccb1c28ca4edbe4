package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

// fakeACP is the stand-in ACP agent (test/fakeacp).
var fakeACP string

// editor is an editor-like ACP client: it starts the agent (or
// cursor-otel in its place) on pipes, sends requests, answers the agent's
// own requests as an editor does, and keeps every byte both ways.
type editor struct {
	t      testing.TB
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	sent   bytes.Buffer
	got    bytes.Buffer
	nextID int
	// bigFile is the size of the file fs/read_text_file answers for big.txt.
	bigFile int
	// onUpdate sees each session/update line while a request waits.
	onUpdate func(e *editor, line []byte)
	// permissionDelay is how long the person takes to answer a
	// permission request; one for a tool call whose id ends -reject is
	// rejected.
	permissionDelay time.Duration
	// requests are the agent's requests seen, by method.
	requests map[string]int
	waitOnce sync.Once
	exit     int
}

func startEditor(t testing.TB, bin string, env []string, args ...string) *editor {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = withBaseEnv(t, env)
	e := &editor{t: t, cmd: cmd, requests: map[string]int{}}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &e.stderr
	e.in, e.out = in, bufio.NewReaderSize(out, 1<<20)
	proctest.Start(t, cmd, 60*time.Second)
	return e
}

func (e *editor) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		e.t.Fatal(err)
	}
	b = append(b, '\n')
	e.sent.Write(b)
	if _, err := e.in.Write(b); err != nil {
		e.t.Fatalf("write to the agent: %v", err)
	}
}

// notify sends a notification.
func (e *editor) notify(method string, params any) {
	e.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

type rpcAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	eof bool // the agent's stdout ended first
}

// request sends a request and reads until its answer, answering the
// agent's requests meanwhile.
func (e *editor) request(method string, params any) rpcAnswer {
	e.t.Helper()
	e.nextID++
	id := e.nextID
	e.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for {
		line, err := e.out.ReadBytes('\n')
		e.got.Write(line)
		if len(line) > 0 {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
				rpcAnswer
			}
			m.Result, m.Error = nil, nil
			if json.Unmarshal(line, &m) == nil {
				switch {
				case m.Method == "session/update":
					if e.onUpdate != nil {
						e.onUpdate(e, line)
					}
				case m.Method != "" && len(m.ID) > 0:
					e.requests[m.Method]++
					e.answerAgent(m.ID, m.Method, m.Params)
				case string(m.ID) == fmt.Sprint(id):
					var a rpcAnswer
					_ = json.Unmarshal(line, &a)
					return a
				}
			}
		}
		if err != nil {
			return rpcAnswer{eof: true}
		}
	}
}

func (e *editor) answerAgent(id json.RawMessage, method string, params json.RawMessage) {
	var p struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal(params, &p)
	var result any = map[string]any{}
	switch method {
	case "session/request_permission":
		var perm struct {
			ToolCall struct {
				ToolCallID string `json:"toolCallId"`
			} `json:"toolCall"`
		}
		_ = json.Unmarshal(params, &perm)
		option := "allow-once"
		if strings.HasSuffix(perm.ToolCall.ToolCallID, "-reject") {
			option = "reject-once"
		}
		time.Sleep(e.permissionDelay) // the person reading the question: the wait the test measures
		result = map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": option}}
	case "fs/read_text_file":
		content := "package main\n"
		if strings.HasSuffix(p.Path, "big.txt") {
			content = strings.Repeat("abcdefghij", e.bigFile/10)
		}
		if strings.HasSuffix(p.Path, "never") {
			return // never answered
		}
		result = map[string]any{"content": content}
	case "terminal/create":
		result = map[string]any{"terminalId": "term-1"}
	case "terminal/wait_for_exit":
		result = map[string]any{"exitCode": 1}
	case "cursor/ask_question":
		result = map[string]any{"outcome": map[string]any{"outcome": "answered", "answers": []any{map[string]any{"questionId": "db", "selectedOptionIds": []string{"pg"}}}}}
	case "cursor/create_plan":
		result = map[string]any{"outcome": map[string]any{"outcome": "accepted"}}
	case "elicitation/create":
		result = map[string]any{"action": "decline"}
	case "cursor/task":
		result = map[string]any{"agentId": "agent-7", "durationMs": 3}
	}
	e.write(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "result": result})
}

// newSession initializes and opens a session, returning its id.
func (e *editor) newSession() string {
	e.t.Helper()
	if a := e.request("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{
		"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true}}); a.Error != nil || a.eof {
		e.t.Fatalf("initialize: %+v", a)
	}
	a := e.request("session/new", map[string]any{"cwd": "/w", "mcpServers": []any{}})
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(a.Result, &r); err != nil || r.SessionID == "" {
		e.t.Fatalf("session/new: %s %v", a.Result, err)
	}
	return r.SessionID
}

// prompt sends a prompt turn and waits for its answer.
func (e *editor) prompt(sid, text string, meta map[string]any) rpcAnswer {
	e.t.Helper()
	params := map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}
	if meta != nil {
		params["_meta"] = meta
	}
	return e.request("session/prompt", params)
}

// close closes the agent's stdin, reads what is left and waits for its
// exit status.
func (e *editor) close() int {
	e.waitOnce.Do(func() {
		e.in.Close()
		rest, _ := io.ReadAll(e.out)
		e.got.Write(rest)
		err := e.cmd.Wait()
		if x, ok := err.(*exec.ExitError); ok {
			e.exit = x.ExitCode()
		} else if err != nil {
			e.t.Fatalf("wait: %v", err)
		}
	})
	return e.exit
}
