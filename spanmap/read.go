package spanmap

import (
	"cmp"

	"go.opentelemetry.io/otel/attribute"
)

// Value returns the attribute k among attrs, or an empty value.
func Value(attrs []attribute.KeyValue, k attribute.Key) attribute.Value {
	for _, a := range attrs {
		if a.Key == k {
			return a.Value
		}
	}
	return attribute.Value{}
}

// ToolSubject is what a tool call span says the call acted on: a command,
// an MCP tool and its server, the subagent a task ran, a pattern and
// where it looked, a path, a URL or a query.
func ToolSubject(attrs []attribute.KeyValue) string {
	str := func(k attribute.Key) string { return Value(attrs, k).AsString() }
	if v := str(ToolCommand); v != "" {
		return v
	}
	if tool, server := str(MCPTool), str(MCPServer); tool != "" && server != "" {
		return server + ": " + tool
	} else if tool != "" {
		return tool
	}
	if desc, typ := str(SubagentDescription), str(SubagentType); desc != "" && typ != "" {
		return typ + ": " + desc
	} else if v := cmp.Or(desc, typ); v != "" {
		return v
	}
	if pattern, path := str(ToolPattern), str(ToolPath); pattern != "" && path != "" {
		return pattern + " in " + path
	}
	return cmp.Or(str(ToolPattern), str(ToolPath), str(ToolURL), str(ToolQuery))
}
