package spanmap

import (
	"testing"
)

// A JSON-RPC request that is no GenAI operation (the agent's requests of
// the editor, the editor's session/set_mode during a turn, a wait on the
// person) is a JSON-RPC span: rpc.system=jsonrpc, rpc.method, no
// gen_ai.operation.name, in its conversation and agent; the agent's
// request for a tool's work sits under that tool; every execute_tool
// names its tool.
func TestACPRequestsAreJSONRPCSpans(t *testing.T) {
	spans := acpScript(t,
		`>{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t1","kind":"read","status":"in_progress","locations":[{"path":"/w/a.go"}]}}}`,
		`<{"jsonrpc":"2.0","id":"r1","method":"fs/read_text_file","params":{"sessionId":"s","path":"/w/a.go"}}`,
		`>{"jsonrpc":"2.0","id":"r1","result":{"content":"package a"}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}}}`,
		`<{"jsonrpc":"2.0","id":"r2","method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t2"},"options":[]}}`,
		`>{"jsonrpc":"2.0","id":"r2","result":{"outcome":{"outcome":"cancelled"}}}`,
		`<{"jsonrpc":"2.0","id":"r3","method":"terminal/create","params":{"sessionId":"s","command":"go"}}`,
		`>{"jsonrpc":"2.0","id":"r3","error":{"code":-32603,"message":"no terminal"}}`,
		`>{"jsonrpc":"2.0","id":2,"method":"session/set_mode","params":{"sessionId":"s","modeId":"ask"}}`,
		`<{"jsonrpc":"2.0","id":2,"result":{}}`,
		`<{"jsonrpc":"2.0","id":"r4","method":"cursor/generate_image","params":{"sessionId":"s"}}`,
		`>{"jsonrpc":"2.0","id":"r4","result":{}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
	)
	byName := map[string]int{}
	for _, s := range spans {
		byName[s.Name()]++
		checkOperation(t, s.Name(), spanAttr(s, string(OperationName)), spanAttr(s, string(ToolName)))
		if spanAttr(s, string(ConversationID)) != "s" || spanAttr(s, string(AgentName)) == "" {
			t.Errorf("%s: conversation %q, agent %q", s.Name(), spanAttr(s, string(ConversationID)), spanAttr(s, string(AgentName)))
		}
	}
	for _, name := range []string{"fs/read_text_file", "terminal/create", "session/set_mode", "request_permission"} {
		if byName[name] != 1 {
			t.Errorf("%d %s spans, want 1 (%v)", byName[name], name, byName)
		}
	}
	var tool string
	for _, s := range spans {
		if s.Name() == "execute_tool read" {
			tool = s.SpanContext().SpanID().String()
		}
	}
	for _, s := range spans {
		switch s.Name() {
		case "fs/read_text_file", "terminal/create", "session/set_mode", "request_permission":
			if op := spanAttr(s, string(OperationName)); op != "" || spanAttr(s, string(RPCSystem)) != "jsonrpc" ||
				spanAttr(s, string(RPCMethod)) == "" || spanAttr(s, string(ToolName)) != "" {
				t.Errorf("%s: operation %q, rpc.system %q, rpc.method %q, tool %q; want a JSON-RPC span", s.Name(), op,
					spanAttr(s, string(RPCSystem)), spanAttr(s, string(RPCMethod)), spanAttr(s, string(ToolName)))
			}
		case "execute_tool generate_image":
			if spanAttr(s, string(OperationName)) != OpExecuteTool {
				t.Errorf("generate_image is a tool: %v", s.Attributes())
			}
		}
		if s.Name() == "fs/read_text_file" && s.Parent().SpanID().String() != tool {
			t.Errorf("the file read is not under its tool")
		}
		if s.Name() == "terminal/create" && spanAttr(s, string(RPCJSONRPCCode)) != "-32603" {
			t.Errorf("terminal/create's error: %v", s.Attributes())
		}
	}
}
