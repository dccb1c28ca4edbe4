package spanmap

import (
	"encoding/json"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
)

// The view is a JSON object that encoding/json reads back to the facts,
// with the bytes encoding/json would have written: the same facts give
// the same text, whatever the order of the attributes. A view the span
// has captured content for is not made.
func TestMetadataViewIsTheJSONOfTheFacts(t *testing.T) {
	for _, attrs := range [][]attribute.KeyValue{
		{ToolCommand.String(`go test ./... && echo "<done>"` + "\n\t\x01\u2028"), ToolExitCode.Int64(-1), ToolOutcome.String("failed"), ToolWorkingDir.String("/w")},
		{ToolPath.String("bad \xff utf-8 é"), ToolLines.Int64(12), ToolOutcome.String("success")},
		{MCPServer.String("github"), MCPTool.String("get_issue"), ToolError.String(`say "no"`)},
		{ToolCallID.String("call_1")},
		{ToolOutcome.String("success"), ToolLines.Int64(3), ToolOutcome.String("failed"), ToolPath.String("a.go"), ToolPath.String("b.go")}, // the first of a key, as Value reads
		{ToolCommand.String("make"), ToolArguments.String(`{"command":"make","captured":true}`)},
	} {
		view := metadataView(attrs)
		for _, v := range []struct {
			key   attribute.Key
			facts []fact
		}{{ToolArguments, argumentFacts}, {ToolResult, resultFacts}} {
			want := map[string]any{}
			for _, f := range v.facts {
				if val := Value(attrs, f.key); val.Type() != attribute.EMPTY {
					want[f.name] = val.AsInterface()
				}
			}
			got := Value(view, v.key)
			if len(want) == 0 || Value(attrs, v.key).Type() != attribute.EMPTY {
				if got.Type() != attribute.EMPTY {
					t.Errorf("%v: %s = %s, want none", attrs, v.key, got.String())
				}
				continue
			}
			b, _ := json.Marshal(want)
			if got.AsString() != string(b) {
				t.Errorf("%s:\n got %s\nwant %s", v.key, got.AsString(), b)
			}
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\\n\r\t\x00\x1f<>&", "\u2028\u2029", "\xff\xfe", "é世界🙂"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("%q:\n got %s\nwant %s", s, got, want)
		}
		if strings.ContainsAny(string(appendJSONString(nil, s)), "\n\r<>&") {
			t.Errorf("%q: not escaped", s)
		}
	})
}
