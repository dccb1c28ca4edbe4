package spanmap

import (
	"testing"

	"go.opentelemetry.io/otel/attribute"
)

// What the tree and the summaries show for a tool call: the thing a
// person recognises the call by.
func TestToolSubject(t *testing.T) {
	for _, tt := range []struct {
		attrs []attribute.KeyValue
		want  string
	}{
		{[]attribute.KeyValue{ToolCommand.String("go test ./..."), ToolPath.String("/repo")}, "go test ./..."},
		{[]attribute.KeyValue{MCPTool.String("create_issue"), MCPServer.String("github")}, "github: create_issue"},
		{[]attribute.KeyValue{MCPTool.String("create_issue")}, "create_issue"},
		{[]attribute.KeyValue{SubagentType.String("explore"), SubagentDescription.String("List docs")}, "explore: List docs"},
		{[]attribute.KeyValue{SubagentDescription.String("List docs")}, "List docs"},
		{[]attribute.KeyValue{ToolPattern.String("func main"), ToolPath.String("cmd")}, "func main in cmd"},
		{[]attribute.KeyValue{ToolURL.String("https://go.dev")}, "https://go.dev"},
		{nil, ""},
	} {
		if got := ToolSubject(tt.attrs); got != tt.want {
			t.Errorf("ToolSubject(%v) = %q, want %q", tt.attrs, got, tt.want)
		}
	}
}
