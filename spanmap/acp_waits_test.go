package spanmap

import (
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// acpWaitScript is a turn in which a tool call waits on the person through
// each kind of wait (Cursor's extensions carry the tool call's id and no
// session), updates its todos, and the editor and agent make requests
// nobody here knows.
func acpWaitScript(t *testing.T, capture bool) map[string][]sdktrace.ReadOnlySpan {
	return acpSpans(acpScriptWith(t, Options{CaptureContent: capture, MaxContent: DefaultMaxContent},
		acpPrompt1,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"q1","kind":"other","status":"in_progress"}}}`,
		`<{"jsonrpc":"2.0","id":1,"method":"cursor/ask_question","params":{"toolCallId":"q1","title":"Which database?","questions":[{"id":"db","prompt":"Which database?","options":[{"id":"pg","label":"Postgres"}]}]}}`,
		`>{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"answered","answers":[{"questionId":"db","selectedOptionIds":["pg"]}]}}}`,
		`<{"jsonrpc":"2.0","id":2,"method":"cursor/create_plan","params":{"toolCallId":"q1","plan":"1. migrate\n2. test"}}`,
		`>{"jsonrpc":"2.0","id":2,"result":{"outcome":{"outcome":"rejected"}}}`,
		`<{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{"sessionId":"a","message":"Your token?","requestedSchema":{"type":"object"}}}`,
		`>{"jsonrpc":"2.0","id":3,"result":{"action":"decline"}}`,
		`<{"jsonrpc":"2.0","id":4,"method":"cursor/update_todos","params":{"toolCallId":"q1","todos":[{"id":"1","content":"migrate","status":"completed"},{"id":"2","content":"test","status":"pending"}]}}`,
		`>{"jsonrpc":"2.0","id":4,"result":{}}`,
		`<{"jsonrpc":"2.0","id":5,"method":"_zed/frobnicate","params":{"sessionId":"a"}}`,
		`>{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}`,
		`>{"jsonrpc":"2.0","id":"e1","method":"cursor/whatever","params":{"sessionId":"a"}}`,
		`<{"jsonrpc":"2.0","id":"e1","result":{}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"m1","kind":"other","status":"in_progress","rawInput":{"toolName":"create_issue","providerIdentifier":"github","args":{}}}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call_update","toolCallId":"m1","status":"completed"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call_update","toolCallId":"q1","status":"completed"}}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
	))
}

func TestACPEveryWaitOnThePersonASpan(t *testing.T) {
	by := acpWaitScript(t, false)
	tool := by["execute_tool other"]
	if len(tool) != 1 {
		t.Fatalf("the tool that waited: %v", names(by))
	}
	// A plan to approve is an approval: request_permission, as from the
	// stream. Each says its answer in one attribute.
	for _, tt := range []struct{ name, outcome string }{
		{"cursor/ask_question", "answered"}, {OpRequestPermission, "rejected"}, {"elicitation/create", "decline"},
	} {
		s := by[tt.name]
		if len(s) != 1 {
			t.Errorf("%s: want one span, got %v", tt.name, names(by))
			continue
		}
		if spanAttr(s[0], "cursor.interaction.outcome") != tt.outcome || spanAttr(s[0], "cursor.acp.outcome") != "" || spanAttr(s[0], "cursor.acp.wait") != "true" {
			t.Errorf("%s: outcome %q (and %q) wait %q", tt.name, spanAttr(s[0], "cursor.interaction.outcome"), spanAttr(s[0], "cursor.acp.outcome"), spanAttr(s[0], "cursor.acp.wait"))
		}
		if d := s[0].EndTime().Sub(s[0].StartTime()); d != time.Millisecond {
			t.Errorf("%s: the wait lasted %v, want from request to answer (1ms)", tt.name, d)
		}
		if strings.HasPrefix(tt.name, "cursor/") && s[0].Parent().SpanID() != tool[0].SpanContext().SpanID() {
			t.Errorf("%s is not under the tool call it names", tt.name)
		}
		if spanAttr(s[0], "cursor.acp.request") != "" || spanAttr(s[0], "cursor.acp.response") != "" {
			t.Errorf("%s: text without content capture", tt.name)
		}
	}
	if s := by["_zed/frobnicate"]; len(s) != 1 || s[0].Status().Code.String() != "Error" || spanAttr(s[0], "rpc.jsonrpc.error_code") != "-32601" {
		t.Errorf("an unknown agent request: %v", s)
	}
	if s := by["cursor/whatever"]; len(s) != 1 {
		t.Errorf("an unknown editor request during the turn: %v", names(by))
	}
	if _, ok := by["cursor/update_todos"]; ok {
		t.Errorf("todos are an event, not a span")
	}
	var todos []string
	for _, r := range by["invoke_agent cursor-agent"] {
		for _, ev := range r.Events() {
			if ev.Name == EventACPTodos {
				for _, kv := range ev.Attributes {
					todos = append(todos, string(kv.Key)+"="+kv.Value.String())
				}
			}
		}
	}
	if strings.Join(todos, " ") != `cursor.todos.statuses=["completed","pending"]` {
		t.Errorf("the todos event: %v", todos)
	}
	mcp := by["execute_tool create_issue"]
	if len(mcp) != 1 || spanAttr(mcp[0], "cursor.mcp.server") != "github" || spanAttr(mcp[0], "gen_ai.tool.name") != "create_issue" {
		t.Errorf("an MCP tool is named by its tool, with its server: %v", names(by))
	}
}

func TestACPWaitTextOnlyWithCapture(t *testing.T) {
	by := acpWaitScript(t, true)
	q := by["cursor/ask_question"]
	if len(q) != 1 || !strings.Contains(spanAttr(q[0], "cursor.acp.request"), "Which database?") || !strings.Contains(spanAttr(q[0], "cursor.acp.response"), "pg") {
		t.Errorf("a captured question and answer: %v", q)
	}
}

// TestACPEditorRequestsOfNoTurn: a request the editor makes naming no
// session (a second session opened meanwhile) is not the open turn's.
func TestACPEditorRequestsOfNoTurn(t *testing.T) {
	by := acpSpans(acpScript(t, acpPrompt1,
		`>{"jsonrpc":"2.0","id":"n","method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`,
		`<{"jsonrpc":"2.0","id":"n","result":{"sessionId":"b"}}`,
		`>{"jsonrpc":"2.0","id":"m","method":"session/set_mode","params":{"sessionId":"a","modeId":"plan"}}`,
		`<{"jsonrpc":"2.0","id":"m","result":{}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
	))
	if len(by["session/new"]) != 0 || len(by["session/set_mode"]) != 1 {
		t.Errorf("editor requests during a turn: %v", names(by))
	}
}
