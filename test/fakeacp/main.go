// fakeacp is a stand-in for `cursor-agent acp` in tests: an Agent Client
// Protocol agent (JSON-RPC 2.0, one message a line on stdin and stdout,
// requests both ways) written from agentclientprotocol/agent-client-protocol
// schema/v1. What it does in a turn is chosen by the prompt's text:
//
//	echo     answers end_turn at once (for timing round trips)
//	work     thinks, plans, runs a tool call that asks permission, reads and
//	         writes a file through the editor, runs a terminal, reports usage
//	         and cost, answers end_turn with usage
//	big      asks the editor for a file (whatever size the editor answers)
//	cancel   starts a tool call and waits for session/cancel: cancelled
//	error    answers with a JSON-RPC error
//	die      starts a tool call and exits 3 mid-turn
//	noise    writes a line that is not JSON-RPC, then answers end_turn
//	hang     asks the editor for a file and ignores the answer's absence: answers end_turn
//	         without waiting
//	ask      waits on the person as Cursor does: a question and a plan to
//	         approve (cursor/ask_question, cursor/create_plan: the tool
//	         call's id, no sessionId), an elicitation, a todo list
//	team     an edit whose content is a diff (a new line, a changed line),
//	         put to the person (session/request_permission), then a
//	         shell call put to the person, and the turn's cost in
//	         FAKEACP_CURRENCY (default EUR)
//	subagent runs a subagent session (subagent_update announcing it, its
//	         own tool call, file read and cost) and Cursor's cursor/task
//
// At the end of stdin it exits with FAKEACP_EXIT (default 0).
// FAKEACP_RECORD=FILE writes its arguments, and every byte it read and
// wrote, as JSON when stdin ends. FAKEAGENT_RUNS=FILE appends its
// arguments, a JSON array a line, as the stand-in agent does.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

type msg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

type agent struct {
	outMu   sync.Mutex
	out     *bufio.Writer
	wrote   strings.Builder
	read    strings.Builder
	nextID  int
	waitMu  sync.Mutex
	waiting map[string]chan msg
	cancel  chan string
	session int
	model   string
}

func main() {
	a := &agent{out: bufio.NewWriter(os.Stdout), waiting: map[string]chan msg{}, cancel: make(chan string, 8), model: "gpt-5"}
	if m := os.Getenv("FAKEACP_MODEL"); m != "" {
		a.model = m
	}
	if path := os.Getenv("FAKEAGENT_RUNS"); path != "" {
		b, _ := json.Marshal(os.Args[1:])
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err == nil {
			f.Write(append(b, '\n'))
			f.Close()
		}
	}
	requests := make(chan msg, 64)
	go a.readLoop(requests)
	for req := range requests {
		a.handle(req)
	}
	a.record()
	code, _ := strconv.Atoi(os.Getenv("FAKEACP_EXIT"))
	os.Exit(code)
}

func (a *agent) readLoop(requests chan<- msg) {
	defer close(requests)
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadString('\n')
		a.read.WriteString(line)
		if line != "" {
			var m msg
			if json.Unmarshal([]byte(line), &m) == nil {
				switch {
				case m.Method == "session/cancel":
					var p struct {
						SessionID string `json:"sessionId"`
					}
					_ = json.Unmarshal(m.Params, &p)
					a.cancel <- p.SessionID
				case m.Method != "" && len(m.ID) > 0:
					requests <- m
				case m.Method == "" && len(m.ID) > 0:
					a.waitMu.Lock()
					ch := a.waiting[string(m.ID)]
					delete(a.waiting, string(m.ID))
					a.waitMu.Unlock()
					if ch != nil {
						ch <- m
					}
				}
			}
		}
		if err != nil {
			return
		}
	}
}

func (a *agent) send(m msg) {
	m.JSONRPC = "2.0"
	b, _ := json.Marshal(m)
	a.outMu.Lock()
	defer a.outMu.Unlock()
	a.out.Write(b)
	a.out.WriteByte('\n')
	a.wrote.Write(b)
	a.wrote.WriteByte('\n')
	a.out.Flush()
}

func (a *agent) raw(line string) {
	a.outMu.Lock()
	defer a.outMu.Unlock()
	a.out.WriteString(line)
	a.wrote.WriteString(line)
	a.out.Flush()
}

func (a *agent) answer(id json.RawMessage, result any) {
	b, _ := json.Marshal(result)
	a.send(msg{ID: id, Result: b})
}

func (a *agent) fail(id json.RawMessage, code int, message string) {
	b, _ := json.Marshal(map[string]any{"code": code, "message": message})
	a.send(msg{ID: id, Error: b})
}

func (a *agent) notify(sessionID string, update map[string]any) {
	b, _ := json.Marshal(map[string]any{"sessionId": sessionID, "update": update})
	a.send(msg{Method: "session/update", Params: b})
}

// ask sends a request to the editor and waits for its answer.
func (a *agent) ask(method string, params any) msg {
	ch := a.askLater(method, params)
	return <-ch
}

func (a *agent) askLater(method string, params any) chan msg {
	a.nextID++
	id := fmt.Sprint(a.nextID)
	ch := make(chan msg, 1)
	a.waitMu.Lock()
	a.waiting[id] = ch
	a.waitMu.Unlock()
	b, _ := json.Marshal(params)
	a.send(msg{ID: json.RawMessage(id), Method: method, Params: b})
	return ch
}

func (a *agent) handle(req msg) {
	var p struct {
		SessionID string `json:"sessionId"`
		ModelID   string `json:"modelId"`
		Prompt    []struct {
			Text string `json:"text"`
		} `json:"prompt"`
	}
	_ = json.Unmarshal(req.Params, &p)
	switch req.Method {
	case "initialize":
		a.answer(req.ID, map[string]any{"protocolVersion": 1,
			"agentCapabilities": map[string]any{"loadSession": true, "promptCapabilities": map[string]any{}},
			"authMethods":       []any{}})
	case "session/new":
		a.session++
		a.answer(req.ID, map[string]any{"sessionId": fmt.Sprintf("sess-%d", a.session),
			"models": map[string]any{"currentModelId": a.model, "availableModels": []any{map[string]any{"modelId": a.model, "name": a.model}}}})
	case "session/load":
		a.answer(req.ID, map[string]any{"configOptions": []any{map[string]any{"id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": a.model, "options": []any{}}}})
	case "session/set_model":
		a.answer(req.ID, map[string]any{})
	case "session/prompt":
		text := ""
		for _, b := range p.Prompt {
			text += b.Text
		}
		a.prompt(req.ID, p.SessionID, strings.TrimSpace(text))
	default:
		a.fail(req.ID, -32601, "Method not found: "+req.Method)
	}
}

func (a *agent) prompt(id json.RawMessage, sid, text string) {
	switch text {
	case "echo":
		a.answer(id, map[string]any{"stopReason": "end_turn"})
	case "work":
		for _, t := range []string{"Let me ", "look at ", "the file."} {
			a.notify(sid, map[string]any{"sessionUpdate": "agent_thought_chunk", "content": map[string]any{"type": "text", "text": t}})
		}
		a.notify(sid, map[string]any{"sessionUpdate": "plan", "entries": []any{
			map[string]any{"content": "Read main.go", "priority": "high", "status": "in_progress"},
			map[string]any{"content": "Fix the bug", "priority": "medium", "status": "pending"}}})
		a.notify(sid, map[string]any{"sessionUpdate": "tool_call", "toolCallId": "call-1", "title": "Edit main.go", "kind": "edit", "status": "pending",
			"locations": []any{map[string]any{"path": "/w/main.go"}}, "rawInput": map[string]any{"path": "/w/main.go"}})
		perm := a.ask("session/request_permission", map[string]any{"sessionId": sid,
			"toolCall": map[string]any{"toolCallId": "call-1"},
			"options": []any{map[string]any{"optionId": "allow-once", "name": "Allow", "kind": "allow_once"},
				map[string]any{"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}}})
		_ = perm
		a.notify(sid, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "call-1", "status": "in_progress"})
		a.ask("fs/read_text_file", map[string]any{"sessionId": sid, "path": "/w/main.go"})
		a.ask("fs/write_text_file", map[string]any{"sessionId": sid, "path": "/w/main.go", "content": "package main\n"})
		a.notify(sid, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "call-1", "status": "completed"})
		a.notify(sid, map[string]any{"sessionUpdate": "tool_call", "toolCallId": "call-2", "title": "go test ./...", "kind": "execute", "status": "in_progress"})
		term := a.ask("terminal/create", map[string]any{"sessionId": sid, "command": "go", "args": []string{"test", "./..."}})
		var tr struct {
			Result struct {
				TerminalID string `json:"terminalId"`
			}
		}
		b, _ := json.Marshal(term)
		_ = json.Unmarshal(b, &tr)
		a.ask("terminal/wait_for_exit", map[string]any{"sessionId": sid, "terminalId": tr.Result.TerminalID})
		a.ask("terminal/release", map[string]any{"sessionId": sid, "terminalId": tr.Result.TerminalID})
		a.notify(sid, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "call-2", "status": "failed"})
		a.notify(sid, map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": "Fixed it."}})
		a.notify(sid, map[string]any{"sessionUpdate": "usage_update", "used": 53000, "size": 200000, "cost": map[string]any{"amount": 0.045, "currency": "USD"}})
		a.answer(id, map[string]any{"stopReason": "end_turn", "usage": map[string]any{"inputTokens": 1200, "outputTokens": 300, "totalTokens": 1500, "cachedReadTokens": 800}})
	case "team":
		a.team(sid)
		a.answer(id, map[string]any{"stopReason": "end_turn", "usage": map[string]any{"inputTokens": 900, "outputTokens": 100, "totalTokens": 1000}})
	case "big":
		a.ask("fs/read_text_file", map[string]any{"sessionId": sid, "path": "/w/big.txt"})
		a.answer(id, map[string]any{"stopReason": "end_turn"})
	case "cancel":
		a.notify(sid, map[string]any{"sessionUpdate": "tool_call", "toolCallId": "call-c", "title": "sleep 100", "kind": "execute", "status": "in_progress"})
		for got := range a.cancel {
			if got == sid {
				break
			}
		}
		a.answer(id, map[string]any{"stopReason": "cancelled"})
	case "error":
		a.fail(id, -32603, "Internal error: model unavailable")
	case "die":
		a.notify(sid, map[string]any{"sessionUpdate": "tool_call", "toolCallId": "call-d", "title": "rm -rf build", "kind": "delete", "status": "in_progress"})
		a.askLater("fs/read_text_file", map[string]any{"sessionId": sid, "path": "/w/never"})
		fmt.Fprintln(os.Stderr, "fakeacp: dying mid-turn")
		a.record()
		os.Exit(3)
	case "ask":
		a.notify(sid, map[string]any{"sessionUpdate": "tool_call", "toolCallId": "call-q", "title": "Ask the user", "kind": "other", "status": "in_progress"})
		a.ask("cursor/ask_question", map[string]any{"toolCallId": "call-q", "title": "Which database?",
			"questions": []any{map[string]any{"id": "db", "prompt": "Which database?", "options": []any{map[string]any{"id": "pg", "label": "Postgres"}}}}})
		a.ask("cursor/create_plan", map[string]any{"toolCallId": "call-q", "name": "Migrate", "plan": "1. migrate\n2. test"})
		a.ask("cursor/update_todos", map[string]any{"toolCallId": "call-q", "todos": []any{map[string]any{"id": "1", "content": "migrate", "status": "in_progress"}}})
		a.ask("elicitation/create", map[string]any{"sessionId": sid, "message": "Your name?", "requestedSchema": map[string]any{"type": "object"}})
		a.notify(sid, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "call-q", "status": "completed"})
		a.answer(id, map[string]any{"stopReason": "end_turn"})
	case "subagent":
		child := sid + "-child"
		a.notify(sid, map[string]any{"sessionUpdate": "tool_call", "toolCallId": "call-t", "title": "Explore", "kind": "other", "status": "in_progress"})
		a.notify(sid, map[string]any{"sessionUpdate": "subagent_update", "sessionId": child, "title": "explore", "state": map[string]any{"state": "running"}})
		a.notify(child, map[string]any{"sessionUpdate": "tool_call", "toolCallId": "call-c1", "kind": "read", "status": "in_progress", "locations": []any{map[string]any{"path": "/w/main.go"}}})
		a.ask("fs/read_text_file", map[string]any{"sessionId": child, "path": "/w/main.go"})
		a.notify(child, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "call-c1", "status": "completed"})
		a.notify(child, map[string]any{"sessionUpdate": "usage_update", "used": 100, "size": 1000, "cost": map[string]any{"amount": 0.01, "currency": "USD"}})
		a.notify(sid, map[string]any{"sessionUpdate": "subagent_update", "sessionId": child, "state": map[string]any{"state": "idle", "stopReason": "end_turn"}})
		a.notify(sid, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "call-t", "status": "completed"})
		a.notify(sid, map[string]any{"sessionUpdate": "tool_call", "toolCallId": "call-k", "title": "Task", "kind": "other", "status": "in_progress"})
		a.ask("cursor/task", map[string]any{"toolCallId": "call-k", "subagentType": "shell", "prompt": "run the tests"})
		a.notify(sid, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "call-k", "status": "completed"})
		a.answer(id, map[string]any{"stopReason": "end_turn"})
	case "noise":
		a.raw("fakeacp: a line that is not JSON-RPC\n")
		a.answer(id, map[string]any{"stopReason": "end_turn"})
	case "hang":
		a.askLater("fs/read_text_file", map[string]any{"sessionId": sid, "path": "/w/never"})
		a.answer(id, map[string]any{"stopReason": "end_turn"})
	default:
		a.notify(sid, map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": "ok"}})
		a.answer(id, map[string]any{"stopReason": "end_turn"})
	}
}

func (a *agent) record() {
	path := os.Getenv("FAKEACP_RECORD")
	if path == "" {
		return
	}
	a.outMu.Lock()
	defer a.outMu.Unlock()
	b, _ := json.Marshal(map[string]any{"args": os.Args[1:], "read": a.read.String(), "wrote": a.wrote.String(),
		"stream_traced": os.Getenv("CURSOR_OTEL_STREAM_TRACED")})
	_ = os.WriteFile(path, b, 0o600)
}

// team is the team turn's work: an edit of a diff's lines and a shell
// call, each put to the person, and the turn's cost.
func (a *agent) team(sid string) {
	diff := []any{map[string]any{"type": "diff", "path": "/w/main.go", "oldText": "package main\n\nfunc main() {}\n",
		"newText": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println() }\n"}}
	a.notify(sid, map[string]any{"sessionUpdate": "tool_call", "toolCallId": "team-edit", "title": "Edit main.go", "kind": "edit", "status": "pending",
		"locations": []any{map[string]any{"path": "/w/main.go"}}, "content": diff})
	a.ask("session/request_permission", map[string]any{"sessionId": sid, "toolCall": map[string]any{"toolCallId": "team-edit"},
		"options": []any{map[string]any{"optionId": "allow-once", "name": "Allow", "kind": "allow_once"},
			map[string]any{"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}}})
	a.notify(sid, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "team-edit", "status": "completed", "content": diff})
	a.notify(sid, map[string]any{"sessionUpdate": "tool_call", "toolCallId": "team-shell-reject", "title": "rm -rf build", "kind": "execute", "status": "pending"})
	a.ask("session/request_permission", map[string]any{"sessionId": sid, "toolCall": map[string]any{"toolCallId": "team-shell-reject"},
		"options": []any{map[string]any{"optionId": "allow-once", "name": "Allow", "kind": "allow_once"},
			map[string]any{"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}}})
	a.notify(sid, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "team-shell-reject", "status": "failed"})
	currency := os.Getenv("FAKEACP_CURRENCY")
	if currency == "" {
		currency = "EUR"
	}
	a.notify(sid, map[string]any{"sessionUpdate": "usage_update", "used": 1000, "size": 200000, "cost": map[string]any{"amount": 0.25, "currency": currency}})
}
