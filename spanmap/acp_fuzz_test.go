package spanmap

import (
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// acpVocabulary are ACP lines, with {S} (a session), {C} (another
// session, a child's), {T} (a tool call) and {N} (an id) filled in by the
// fuzzer.
var acpVocabulary = []string{
	`>{"jsonrpc":"2.0","id":{N},"method":"session/prompt","params":{"sessionId":"{S}","prompt":[]}}`,
	`<{"jsonrpc":"2.0","id":{N},"result":{"stopReason":"end_turn"}}`,
	`<{"jsonrpc":"2.0","id":{N},"result":{"stopReason":"cancelled"}}`,
	`<{"jsonrpc":"2.0","id":{N},"error":{"code":-1,"message":"x"}}`,
	`>{"jsonrpc":"2.0","id":{N},"result":{"outcome":{"outcome":"selected","optionId":"o"}}}`,
	`>{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"{S}"}}`,
	`>{"jsonrpc":"2.0","id":{N},"method":"session/new","params":{}}`,
	`<{"jsonrpc":"2.0","id":{N},"result":{"sessionId":"{S}"}}`,
	`>{"jsonrpc":"2.0","id":{N},"method":"session/fork","params":{"sessionId":"{S}"}}`,
	`<{"jsonrpc":"2.0","id":{N},"result":{"sessionId":"{C}"}}`,
	`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{S}","update":{"sessionUpdate":"tool_call","toolCallId":"{T}","status":"in_progress","locations":[{"path":"/p"}]}}}`,
	`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{S}","update":{"sessionUpdate":"tool_call_update","toolCallId":"{T}","kind":"execute","status":"completed"}}}`,
	`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{S}","update":{"sessionUpdate":"subagent_update","sessionId":"{C}","title":"n","state":{"state":"running"}}}}`,
	`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{S}","update":{"sessionUpdate":"subagent_update","sessionId":"{C}","toolCallId":"{T}","status":"completed"}}}`,
	`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{S}","update":{"sessionUpdate":"usage_update","cost":{"amount":0.1,"currency":"USD"}}}}`,
	`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{S}","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`,
	`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{S}","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"x"}}}}`,
	`<{"jsonrpc":"2.0","id":{N},"method":"cursor/task","params":{"toolCallId":"{T}","subagentType":"x"}}`,
	`<{"jsonrpc":"2.0","id":{N},"method":"cursor/ask_question","params":{"toolCallId":"{T}"}}`,
	`<{"jsonrpc":"2.0","id":{N},"method":"fs/read_text_file","params":{"sessionId":"{S}","path":"/p"}}`,
	`<{"jsonrpc":"2.0","id":{N},"method":"session/request_permission","params":{"sessionId":"{S}","toolCall":{"toolCallId":"{T}"}}}`,
	`>{"jsonrpc":"2.0","id":{N},"method":"_x/y","params":{"sessionId":"{S}"}}`,
	`<{"jsonrpc":"2.0","id":{N},"result":{}}`,
	`>{"jsonrpc":"2.0","id":{N},"result":{}}`,
	`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{S}","update":{"sessionUpdate":"state_update","state":"requires_action"}}}`,
	`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{S}","update":{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}}}`,
	`>{"jsonrpc":"2.0","id":{N},"method":"initialize","params":{"protocolVersion":2}}`,
	`<{"jsonrpc":"2.0","id":{N},"result":{"protocolVersion":2}}`,
	`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{S}","update":{"sessionUpdate":"subagent_update","sessionId":"{C}","state":{"state":"idle"}}}}`,
	`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{C}","update":{"sessionUpdate":"subagent_update","sessionId":"{S}","state":{"state":"requires_action"}}}}`,
}

// FuzzACPOrders: any order of ACP messages, ids and sessions: the model
// neither crashes nor hangs, and after Close every span it started has
// ended (no trace is left without its root): a turn's root too, whose
// IDs a probe took as the turn began (counted as FuzzEventOrders counts
// a session's, by its having no attributes, and held to its root).
func FuzzACPOrders(f *testing.F) {
	f.Add([]byte{0, 0, 10, 0, 12, 0, 10, 1, 19, 1, 13, 0, 1, 0})
	f.Add([]byte{0, 0, 0, 0, 5, 0, 2, 0, 1, 0, 17, 2, 12, 1, 22, 2})
	f.Fuzz(fuzzACPOnce)
}

func fuzzACPOnce(t *testing.T, program []byte) {
	{
		rec := tracetest.NewSpanRecorder()
		ids := &testIDs{}
		a := ids.acp(ids.provider(rec).Tracer(""), Options{CaptureContent: len(program)%2 == 0, MaxContent: 16})
		at := time.Unix(1_800_000_000, 0)
		d := parse.NewACPDecoder()
		for i := 0; i+1 < len(program) && i < 400; i += 2 {
			op, arg := program[i], program[i+1]
			l := acpVocabulary[int(op)%len(acpVocabulary)]
			l = strings.NewReplacer("{S}", []string{"a", "b"}[arg&1], "{C}", []string{"c", "a"}[arg>>1&1], "{T}", []string{"t1", "t2"}[arg>>2&1],
				"{N}", []string{"1", "2", "3", `"1"`}[arg>>3&3]).Replace(l)
			if m, ok := d.Decode(l[0] == '>', []byte(l[1:])); ok {
				at = at.Add(time.Millisecond)
				a.Observe(m, at)
			}
		}
		a.Close(at, "ended")
		ended := map[trace.SpanID]bool{}
		for _, s := range rec.Ended() {
			ended[s.SpanContext().SpanID()] = true
		}
		var started int
		var open []string
		for _, s := range rec.Started() {
			probe := len(s.Attributes()) == 0
			if !probe {
				started++
			}
			if probe && !ended[s.SpanContext().SpanID()] || !probe && s.EndTime().IsZero() {
				open = append(open, s.Name())
			}
		}
		if started != len(rec.Ended()) || len(open) > 0 {
			t.Fatalf("%d spans started, %d ended: %q left open", started, len(rec.Ended()), open)
		}
	}
}
