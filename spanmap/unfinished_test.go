package spanmap

import (
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Work still open when an ACP turn closes ends by the rule every source
// follows: ERROR, error.type incomplete; nothing failed when the person
// cancelled.
func TestACPUnfinishedByTheOneRule(t *testing.T) {
	open := []string{
		`>{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"a","prompt":[]}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"t1","kind":"execute","status":"in_progress"}}}`,
		`<{"jsonrpc":"2.0","id":9,"method":"fs/read_text_file","params":{"sessionId":"a","path":"/w/a.go"}}`,
	}
	says := func(s sdktrace.ReadOnlySpan) string {
		return s.Status().Code.String() + " " + spanAttr(s, "error.type")
	}
	for _, tt := range []struct {
		name            string
		end             []string
		tool, req, root string
	}{
		{"the agent exited", nil, "Error incomplete", "Error incomplete", "Error incomplete"},
		{"answered end_turn", []string{`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`}, "Error incomplete", "Error incomplete", "Unset "},
		{"cancelled", []string{`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"cancelled"}}`}, "Unset ", "Error incomplete", "Unset "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spans := acpSpans(acpScript(t, append(open, tt.end...)...))
			for name, want := range map[string]string{"execute_tool shell": tt.tool, "fs/read_text_file": tt.req} {
				if s := spans[name]; len(s) != 1 || says(s[0]) != want {
					t.Errorf("%s: %v, want %q", name, s, want)
				}
			}
			if r := spans["invoke_agent cursor-agent"]; len(r) != 1 || says(r[0]) != tt.root {
				t.Errorf("root: %q, want %q", says(r[0]), tt.root)
			}
		})
	}
}
