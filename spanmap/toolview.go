package spanmap

import (
	"encoding/json"
	"strings"

	"go.opentelemetry.io/otel/attribute"
)

// Without content capture a tool span's GenAI view (Jaeger's, which reads
// only gen_ai.* attributes) would show its call id alone. It is given the
// facts already exported as cursor.tool.* metadata, redacted as they are,
// as gen_ai.tool.call.arguments and gen_ai.tool.call.result: the command,
// path or pattern the call acted on, how it ended. Nothing content capture
// guards (file content, output, arguments not listed here) is among them.
var (
	argumentFacts = []attribute.Key{ToolCommand, ToolWorkingDir, ToolPath, ToolPattern, ToolURL, ToolQuery,
		MCPServer, MCPTool, SubagentType, SubagentDescription}
	resultFacts = []attribute.Key{ToolOutcome, ToolExitCode, ToolSignal, ToolError, ToolLines, ToolLinesAdded,
		ToolLinesRemove, ToolBytes, ToolOutputBytes, ToolFiles}
)

// metadataView is a tool span's arguments and result made of its metadata;
// nothing when it has none.
func metadataView(attrs []attribute.KeyValue) []attribute.KeyValue {
	var out []attribute.KeyValue
	for _, v := range []struct {
		key   attribute.Key
		facts []attribute.Key
	}{{ToolArguments, argumentFacts}, {ToolResult, resultFacts}} {
		if Value(attrs, v.key).Type() != attribute.EMPTY {
			continue // captured content: the real thing
		}
		view := map[string]any{}
		for _, k := range v.facts {
			if val := Value(attrs, k); val.Type() != attribute.EMPTY {
				name := string(k)
				name = name[strings.LastIndexByte(name, '.')+1:]
				view[name] = val.AsInterface()
			}
		}
		if len(view) == 0 {
			continue
		}
		b, _ := json.Marshal(view) // keys sorted: the same facts give the same text
		out = append(out, v.key.String(string(b)))
	}
	return out
}
