package spanmap

import (
	"fmt"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/cursor-otel/cursor-otel/parse"
)

// acpBenchTurn is a turn as an editor and cursor-agent exchange it: the
// prompt, thinking and reply chunks, two tool calls with a file read,
// a permission asked, the answer.
func acpBenchTurn(n int) []string {
	id := fmt.Sprint(n)
	s := `"sessionId":"s"`
	lines := []string{`>{"jsonrpc":"2.0","id":` + id + `,"method":"session/prompt","params":{` + s + `,"prompt":[{"type":"text","text":"fix the failing test in parse"}]}}`}
	for i := range 20 {
		lines = append(lines, fmt.Sprintf(`<{"jsonrpc":"2.0","method":"session/update","params":{%s,"update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"thinking %d"}}}}`, s, i))
	}
	for _, tc := range []string{"t1", "t2"} {
		lines = append(lines,
			`<{"jsonrpc":"2.0","method":"session/update","params":{`+s+`,"update":{"sessionUpdate":"tool_call","toolCallId":"`+tc+`","title":"Read parse/acp.go","kind":"read","status":"pending","locations":[{"path":"/w/parse/acp.go"}],"rawInput":{"path":"/w/parse/acp.go"}}}}`,
			`<{"jsonrpc":"2.0","id":"r`+id+tc+`","method":"fs/read_text_file","params":{`+s+`,"path":"/w/parse/acp.go"}}`,
			`>{"jsonrpc":"2.0","id":"r`+id+tc+`","result":{"content":"package parse\n\nimport (\n\t\"bufio\"\n)\n"}}`,
			`<{"jsonrpc":"2.0","method":"session/update","params":{`+s+`,"update":{"sessionUpdate":"tool_call_update","toolCallId":"`+tc+`","status":"completed","rawOutput":{"lines":120}}}}`)
	}
	lines = append(lines,
		`<{"jsonrpc":"2.0","id":"p`+id+`","method":"session/request_permission","params":{`+s+`,"toolCall":{"toolCallId":"t3","kind":"edit"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"}]}}`,
		`>{"jsonrpc":"2.0","id":"p`+id+`","result":{"outcome":{"outcome":"selected","optionId":"ok"}}}`)
	for i := range 40 {
		lines = append(lines, fmt.Sprintf(`<{"jsonrpc":"2.0","method":"session/update","params":{%s,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"word %d "}}}}`, s, i))
	}
	return append(lines, `<{"jsonrpc":"2.0","id":`+id+`,"result":{"stopReason":"end_turn","usage":{"inputTokens":1200,"outputTokens":300}}}`)
}

// BenchmarkACPTurn: what the tracing side does with a turn's messages,
// decoding and span model, per turn (never on the forwarding's path).
func BenchmarkACPTurn(b *testing.B) {
	var turns [][][]byte
	for n := range 64 {
		var t [][]byte
		for _, l := range acpBenchTurn(n) {
			t = append(t, []byte(l))
		}
		turns = append(turns, t)
	}
	a := (&testIDs{}).acp(noop.NewTracerProvider().Tracer(""), Options{})
	d := parse.NewACPDecoder()
	at := time.Unix(1_800_000_000, 0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for _, l := range turns[i%len(turns)] {
			if m, ok := d.Decode(l[0] == '>', l[1:]); ok {
				a.Observe(m, at)
			}
		}
	}
}
