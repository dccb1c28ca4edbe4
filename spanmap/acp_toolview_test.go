package spanmap

import (
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// An ACP tool call's span shows in a GenAI view (Jaeger's, which reads
// gen_ai.* only) as a stream's does: without content capture its
// arguments and result are made of its metadata, by the one view every
// source's tool spans get; with it, rawInput and rawOutput themselves. An
// agent's request of the editor is a JSON-RPC span, no tool: no GenAI
// view (its path stays in cursor.tool.path).
func TestACPToolMetadataView(t *testing.T) {
	lines := []string{
		`>{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Run go test","kind":"execute","status":"in_progress","rawInput":{"command":"go test"}}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"failed","rawOutput":{"exit":1}}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t2","status":"in_progress","rawInput":{"toolName":"search","providerIdentifier":"docs"}}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t2","status":"completed"}}}`,
		`<{"jsonrpc":"2.0","id":"r","method":"fs/read_text_file","params":{"sessionId":"s","path":"/w/a.go"}}`,
		`>{"jsonrpc":"2.0","id":"r","result":{"content":"package a"}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
	}
	for _, tt := range []struct {
		capture                 bool
		span, arguments, result string
	}{
		{false, "execute_tool shell", "", `{"outcome":"error"}`},
		{false, "execute_tool search", `{"server":"docs","tool":"search"}`, `{"outcome":"success"}`},
		{false, "fs/read_text_file", "", ""},
		{true, "execute_tool shell", `{"command":"go test"}`, `{"exit":1}`},
	} {
		var s []sdktrace.ReadOnlySpan
		for _, span := range acpScriptWith(t, Options{CaptureContent: tt.capture}, lines...) {
			if span.Name() == tt.span {
				s = append(s, span)
			}
		}
		if len(s) != 1 {
			t.Fatalf("capture %v: %d spans %q", tt.capture, len(s), tt.span)
		}
		if got := spanAttr(s[0], string(ToolArguments)); got != tt.arguments {
			t.Errorf("capture %v, %s: arguments %s, want %s", tt.capture, tt.span, got, tt.arguments)
		}
		if got := spanAttr(s[0], string(ToolResult)); got != tt.result {
			t.Errorf("capture %v, %s: result %s, want %s", tt.capture, tt.span, got, tt.result)
		}
	}
}
