package spanmap

import (
	"testing"
)

const acpNewSession = `>{"jsonrpc":"2.0","id":"n","method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`
const acpNewSessionA = `<{"jsonrpc":"2.0","id":"n","result":{"sessionId":"a"}}`

// TestACPSubagents: a subagent (the protocol's subagent session, or
// Cursor's cursor/task) is an invoke_agent span under the tool call that
// started it, with its own session's tools and requests under it, and its
// cost on the turn.
func TestACPSubagents(t *testing.T) {
	spans := acpScript(t, acpNewSession, acpNewSessionA, acpPrompt1,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"task-1","kind":"other","title":"Explore the repo","status":"in_progress"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"subagent_update","sessionId":"child-1","title":"explore","state":{"state":"running"}}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"child-1","update":{"sessionUpdate":"tool_call","toolCallId":"c1","kind":"read","status":"in_progress","locations":[{"path":"/w/x.go"}]}}}`,
		`<{"jsonrpc":"2.0","id":"r1","method":"fs/read_text_file","params":{"sessionId":"child-1","path":"/w/x.go"}}`,
		`>{"jsonrpc":"2.0","id":"r1","result":{"content":"x"}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"child-1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"child-1","update":{"sessionUpdate":"usage_update","used":10,"size":100,"cost":{"amount":0.02,"currency":"USD"}}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"subagent_update","sessionId":"child-1","state":{"state":"requires_action"}}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"subagent_update","sessionId":"child-1","state":{"state":"idle","stopReason":"end_turn"}}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call_update","toolCallId":"task-1","status":"completed"}}}`,
		// Cursor's task: a request naming its tool call, answered with the agent's id.
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"task-2","kind":"other","status":"in_progress"}}}`,
		`<{"jsonrpc":"2.0","id":7,"method":"cursor/task","params":{"toolCallId":"task-2","subagentType":"shell","model":"composer-2","prompt":"run the tests"}}`,
		`>{"jsonrpc":"2.0","id":7,"result":{"agentId":"agent-9","durationMs":1500}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call_update","toolCallId":"task-2","status":"completed"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"usage_update","used":10,"size":100,"cost":{"amount":0.05,"currency":"USD"}}}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
	)
	by := acpSpans(spans)
	root := rootsByPrompt(spans)
	if len(root) != 1 {
		t.Fatalf("want one turn: %v", names(by))
	}
	explore, shell := by["invoke_agent explore"], by["invoke_agent shell"]
	if len(explore) != 1 || len(shell) != 1 {
		t.Fatalf("want a span per subagent: %v", names(by))
	}
	tools := map[string]string{} // call id → span id
	for name, ss := range by {
		for _, s := range ss {
			if id := spanAttr(s, "gen_ai.tool.call.id"); id != "" && name != "invoke_agent explore" && name != "invoke_agent shell" {
				tools[id] = s.SpanContext().SpanID().String()
			}
		}
	}
	if explore[0].Parent().SpanID().String() != tools["task-1"] || explore[0].SpanKind().String() != "internal" {
		t.Errorf("the subagent is not an INTERNAL span under the tool call that started it")
	}
	if r := by["execute_tool read"]; len(r) != 1 || r[0].Parent().SpanID() != explore[0].SpanContext().SpanID() {
		t.Errorf("the subagent's tool is not under it")
	}
	if r := by["fs/read_text_file"]; len(r) != 1 || r[0].Parent().SpanID() != by["execute_tool read"][0].SpanContext().SpanID() {
		t.Errorf("the subagent's request is not under its tool")
	}
	if spanAttr(explore[0], "gen_ai.usage.cost") != "0.02" || spanAttr(explore[0], "gen_ai.conversation.id") != "a" {
		t.Errorf("the subagent's cost and conversation: %v", explore[0].Attributes())
	}
	if w := by["requires_action"]; len(w) != 1 || w[0].Parent().SpanID() != explore[0].SpanContext().SpanID() || spanAttr(explore[0], "cursor.subagent.status") != "end_turn" {
		t.Errorf("the subagent's wait on the person and its end: %v", names(by))
	}
	if shell[0].Parent().SpanID().String() != tools["task-2"] || spanAttr(shell[0], "cursor.subagent.id") != "agent-9" || spanAttr(shell[0], "gen_ai.agent.id") != "" || spanAttr(shell[0], "cursor.subagent.model") != "composer-2" {
		t.Errorf("Cursor's task: %v", shell[0].Attributes())
	}
	if got := spanAttr(root[0], "gen_ai.usage.cost") + " " + spanAttr(root[0], "cursor.usage.cost"); got != "0.05 0.07" {
		t.Errorf("the turn's cost (own, with its subagents): %s", got)
	}
	for _, s := range spans {
		if s.EndTime().Before(s.StartTime()) {
			t.Errorf("%s ends before it starts", s.Name())
		}
	}
}

// TestACPSubagentLeftOpenEndsWithItsTurn: a subagent never said to end
// ends with its turn, incomplete.
func TestACPSubagentLeftOpenEndsWithItsTurn(t *testing.T) {
	by := acpSpans(acpScript(t, acpPrompt1,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"subagent_update","sessionId":"child-1","title":"explore"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"child-1","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hm"}}}}`,
	))
	s := by["invoke_agent explore"]
	if len(s) != 1 || spanAttr(s[0], "cursor.subagent.status") != "incomplete" || s[0].Status().Code.String() != "Error" || len(s[0].Events()) != 1 {
		t.Errorf("an open subagent at the agent's exit: %v", names(by))
	}
}

// TestACPRequestOfASubagentsTool: Cursor's request naming a tool call of
// a subagent's session goes under that tool, and one naming none goes to
// the only turn open though a subagent runs in it.
func TestACPRequestOfASubagentsTool(t *testing.T) {
	by := acpSpans(acpScript(t, acpPrompt1,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"subagent_update","sessionId":"child-1","title":"explore","state":{"state":"running"}}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"child-1","update":{"sessionUpdate":"tool_call","toolCallId":"c1","kind":"other","status":"in_progress"}}}`,
		`<{"jsonrpc":"2.0","id":5,"method":"cursor/ask_question","params":{"toolCallId":"c1","title":"Which?"}}`,
		`>{"jsonrpc":"2.0","id":5,"result":{"outcome":{"outcome":"answered"}}}`,
		`<{"jsonrpc":"2.0","id":6,"method":"cursor/create_plan","params":{"plan":"x"}}`,
		`>{"jsonrpc":"2.0","id":6,"result":{"outcome":{"outcome":"accepted"}}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
	))
	q, p, tool := by["cursor/ask_question"], by[OpRequestPermission], by["execute_tool other"] // a plan to approve is an approval
	if len(q) != 1 || len(tool) != 1 || q[0].Parent().SpanID() != tool[0].SpanContext().SpanID() {
		t.Errorf("the question of the subagent's tool: %v", names(by))
	}
	if len(p) != 1 {
		t.Errorf("the plan naming no tool, with a subagent running: %v", names(by))
	}
}

// TestACPSubagentEndsWithItsTool: a protocol subagent (its update names
// no tool call) under the tool in progress ends when that tool does, if
// it said nothing of its end.
func TestACPSubagentEndsWithItsTool(t *testing.T) {
	spans := acpScript(t, acpPrompt1,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"task","kind":"other","status":"in_progress"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"subagent_update","sessionId":"child-1","title":"explore","state":{"state":"running"}}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call_update","toolCallId":"task","status":"completed"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"done"}}}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
	)
	by := acpSpans(spans)
	sub, tool := by["invoke_agent explore"], by["execute_tool other"]
	if len(sub) != 1 || len(tool) != 1 || !sub[0].EndTime().Equal(tool[0].EndTime()) || sub[0].Status().Code.String() == "Error" {
		t.Errorf("the subagent and the tool that ran it: %v", names(by))
	}
}
