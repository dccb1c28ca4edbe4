package spanmap

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
)

// Without content capture a tool span's GenAI view (Jaeger's, which reads
// only gen_ai.* attributes) would show its call id alone. It is given the
// facts already exported as cursor.tool.* metadata, redacted as they are,
// as gen_ai.tool.call.arguments and gen_ai.tool.call.result: the command,
// path or pattern the call acted on, how it ended. Nothing content capture
// guards (file content, output, arguments not listed here) is among them.
var (
	argumentFacts = viewOf(ToolCommand, ToolWorkingDir, ToolPath, ToolPattern, ToolURL, ToolQuery,
		MCPServer, MCPTool, SubagentType, SubagentDescription)
	resultFacts = viewOf(ToolOutcome, ToolExitCode, ToolSignal, ToolError, ToolLines, ToolLinesAdded,
		ToolLinesRemove, ToolBytes, ToolOutputBytes, ToolFiles)
)

// fact is an attribute shown in a view, under the last part of its name.
type fact struct {
	key  attribute.Key
	name string
}

// viewOf lists the facts in the order of their names: a JSON object's
// keys sorted, so that the same facts give the same text.
func viewOf(keys ...attribute.Key) []fact {
	facts := make([]fact, len(keys))
	for i, k := range keys {
		facts[i] = fact{k, string(k)[strings.LastIndexByte(string(k), '.')+1:]}
	}
	slices.SortFunc(facts, func(a, b fact) int { return strings.Compare(a.name, b.name) })
	return facts
}

// metadataView is a tool span's arguments and result made of its metadata;
// nothing when it has none.
func metadataView(attrs []attribute.KeyValue) []attribute.KeyValue {
	var out []attribute.KeyValue
	for _, v := range []struct {
		key   attribute.Key
		facts []fact
	}{{ToolArguments, argumentFacts}, {ToolResult, resultFacts}} {
		if Value(attrs, v.key).Type() != attribute.EMPTY {
			continue // captured content: the real thing
		}
		if b := appendView(nil, attrs, v.facts); b != nil {
			out = append(out, v.key.String(string(b)))
		}
	}
	return out
}

// appendView appends, as a JSON object, the facts attrs has; nothing when
// it has none.
func appendView(b []byte, attrs []attribute.KeyValue, facts []fact) []byte {
	for _, f := range facts {
		val := Value(attrs, f.key)
		if val.Type() == attribute.EMPTY {
			continue
		}
		if b == nil {
			b = append(make([]byte, 0, 128), '{')
		} else {
			b = append(b, ',')
		}
		b = appendJSONString(b, f.name)
		b = append(b, ':')
		switch val.Type() {
		case attribute.INT64:
			b = strconv.AppendInt(b, val.AsInt64(), 10)
		case attribute.BOOL:
			b = strconv.AppendBool(b, val.AsBool())
		default:
			b = appendJSONString(b, val.String())
		}
	}
	if b != nil {
		b = append(b, '}')
	}
	return b
}

// appendJSONString appends s as a JSON string, escaped as encoding/json
// escapes it: control characters, <, > and &, U+2028 and U+2029, and
// invalid UTF-8 as U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}
