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

// views are the two views, arguments and result, as metadataView makes
// them; viewed places each fact's key in them.
var (
	views = [...]struct {
		key   attribute.Key
		facts []fact
	}{{ToolArguments, argumentFacts}, {ToolResult, resultFacts}}
	viewed = func() map[attribute.Key]factPlace {
		m := map[attribute.Key]factPlace{}
		for v, view := range views {
			for i, f := range view.facts {
				m[f.key] = factPlace{v, i}
			}
		}
		return m
	}()
)

// factPlace is where a fact is shown: which view, and where in its facts.
type factPlace struct{ view, i int }

// maxFacts bounds the facts of a view.
const maxFacts = 16

// metadataView is a tool span's arguments and result made of its metadata;
// nothing when it has none. It reads the attributes once: a tool span has
// twenty or so, and the views twenty facts (looking each up took 4% of a
// thinking-heavy replay).
func metadataView(attrs []attribute.KeyValue) []attribute.KeyValue {
	var vals [len(views)][maxFacts]attribute.Value
	var seen [len(views)][maxFacts]bool
	var captured, keyed [len(views)]bool
	for _, a := range attrs {
		for v := range views {
			if a.Key == views[v].key && !keyed[v] {
				captured[v], keyed[v] = a.Value.Type() != attribute.EMPTY, true
			}
		}
		if p, ok := viewed[a.Key]; ok && !seen[p.view][p.i] {
			vals[p.view][p.i], seen[p.view][p.i] = a.Value, true
		}
	}
	var out []attribute.KeyValue
	for v, view := range views {
		if captured[v] {
			continue // captured content: the real thing
		}
		if b := appendView(nil, vals[v][:len(view.facts)], view.facts); b != nil {
			out = append(out, view.key.String(string(b)))
		}
	}
	return out
}

// appendView appends, as a JSON object, the facts that have a value
// (vals[i] being facts[i]'s); nothing when none has.
func appendView(b []byte, vals []attribute.Value, facts []fact) []byte {
	for i, f := range facts {
		val := vals[i]
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
