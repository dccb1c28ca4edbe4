package spanmap

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cursor-otel/cursor-otel/parse"
)

// acpScript feeds lines to an ACP model, each a millisecond after the
// last; ">" lines go editor to agent, "<" agent to editor.
func acpScript(t *testing.T, lines ...string) []sdktrace.ReadOnlySpan {
	t.Helper()
	return acpScriptWith(t, Options{}, lines...)
}

// acpScriptWith is acpScript with the model's options.
func acpScriptWith(t *testing.T, opts Options, lines ...string) []sdktrace.ReadOnlySpan {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	ids := &testIDs{}
	a := ids.acp(ids.provider(rec).Tracer(""), opts)
	at := time.Unix(1_800_000_000, 0)
	d := parse.NewACPDecoder()
	for _, l := range lines {
		m, ok := d.Decode(l[0] == '>', []byte(l[1:]))
		if !ok {
			continue
		}
		at = at.Add(time.Millisecond)
		a.Observe(m, at)
	}
	a.Close(at.Add(time.Millisecond), "the agent exited")
	return rec.Ended()
}

func spanAttr(s sdktrace.ReadOnlySpan, key string) string {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}

func TestACPModelFromLoadAndConfigUpdates(t *testing.T) {
	spans := acpScript(t,
		`>{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"a","cwd":"/w","mcpServers":[]}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"configOptions":[{"id":"model","category":"model","type":"select","currentValue":"composer-2","options":[]}]}}`,
		`>{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"a","prompt":[]}}`,
		`<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"config_option_update","configOptions":[{"id":"model","category":"model","currentValue":"sonnet-4.6"}]}}}`,
		`>{"jsonrpc":"2.0","id":3,"method":"session/set_config_option","params":{"sessionId":"a","configId":"model","value":"gpt-5"}}`,
		`<{"jsonrpc":"2.0","id":3,"result":{"configOptions":[{"id":"model","category":"model","currentValue":"gpt-5"}]}}`,
		`>{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"a","prompt":[]}}`,
		`<{"jsonrpc":"2.0","id":4,"result":{"stopReason":"max_tokens"}}`,
	)
	if len(spans) != 2 {
		t.Fatalf("want 2 turns, got %d spans", len(spans))
	}
	if m := spanAttr(spans[0], "gen_ai.request.model"); m != "composer-2" {
		t.Errorf("session/load's configOptions: %q", m)
	}
	if m := spanAttr(spans[1], "gen_ai.request.model"); m != "gpt-5" {
		t.Errorf("after set_config_option: %q", m)
	}
	if links := spans[1].Links(); len(links) != 1 || links[0].SpanContext.SpanID() != spans[0].SpanContext().SpanID() {
		t.Errorf("the second turn does not link to the first: %v", links)
	}
}

func TestACPSessionsEachTheirOwnTurns(t *testing.T) {
	var lines []string
	for i, s := range []string{"a", "b"} {
		lines = append(lines, fmt.Sprintf(`>{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"%s","prompt":[]}}`, 10+i, s))
	}
	lines = append(lines,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"b","update":{"sessionUpdate":"tool_call","toolCallId":"t1","kind":"read","status":"in_progress"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"t1","kind":"edit","status":"completed"}}}`,
		`<{"jsonrpc":"2.0","id":10,"result":{"stopReason":"end_turn"}}`,
		`<{"jsonrpc":"2.0","id":"r1","method":"fs/read_text_file","params":{"sessionId":"b","path":"/x"}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"b","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hm"}}}}`,
	)
	spans := acpScript(t, lines...)
	byName := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byName[s.Name()] = append(byName[s.Name()], s)
	}
	roots := byName[RootName]
	if len(roots) != 2 || roots[0].SpanContext().TraceID() == roots[1].SpanContext().TraceID() {
		t.Fatalf("want two turns in two traces: %v", roots)
	}
	// b's turn never answered: closed by the agent's exit, ERROR, its open
	// tool incomplete and its unanswered request closed.
	b := roots[1]
	if spanAttr(b, "gen_ai.conversation.id") != "b" || b.Status().Code.String() != "Error" {
		t.Errorf("the unanswered turn: %v %v", b.Attributes(), b.Status())
	}
	if r := byName["execute_tool read"]; len(r) != 1 || r[0].Parent().SpanID() != b.SpanContext().SpanID() || spanAttr(r[0], "cursor.tool.outcome") != "incomplete" ||
		spanAttr(r[0], "error.type") != "incomplete" || r[0].Status().Code.String() != "Error" {
		t.Errorf("b's tool: %v", r)
	}
	if r := byName["fs/read_text_file"]; len(r) != 1 || spanAttr(r[0], "cursor.acp.unanswered") != "true" || r[0].Parent().SpanID() != byName["execute_tool read"][0].SpanContext().SpanID() {
		t.Errorf("b's editor request: %v", r)
	}
	if evs := b.Events(); len(evs) != 1 || evs[0].Name != EventThinking {
		t.Errorf("b's thinking: %v", evs)
	}
	if e := byName["execute_tool edit"]; len(e) != 1 || e[0].Parent().SpanID() != roots[0].SpanContext().SpanID() {
		t.Errorf("a's tool: %v", e)
	}
}

func TestACPParentFromMetaWhenValid(t *testing.T) {
	spans := acpScript(t,
		`>{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"a","prompt":[],"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
		`>{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"a","prompt":[],"_meta":{"traceparent":"00-zz-not-valid"}}}`,
		`<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`,
	)
	if got := spans[0].Parent().TraceID().String(); got != "0af7651916cd43dd8448eb211c80319c" || spans[0].Parent().SpanID().String() != "b7ad6b7169203331" {
		t.Errorf("a valid traceparent is not the parent: %v", spans[0].Parent())
	}
	if spans[1].Parent().IsValid() {
		t.Errorf("an invalid traceparent became a parent: %v", spans[1].Parent())
	}
}

func TestACPPromptWithoutSessionClosedByExit(t *testing.T) {
	spans := acpScript(t,
		`>{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"prompt":[]}}`,
		`>{"jsonrpc":"2.0","method":"session/cancel","params":{}}`,
	)
	if len(spans) != 1 || spans[0].Name() != RootName || spans[0].Status().Code.String() != "Error" {
		t.Fatalf("a prompt with no session id, never answered: %v", spans)
	}
}

// TestACPMalformedParamsStillCloseTheTurn: a prompt whose params or
// answer do not decode is still a turn, closed by its answer (its id,
// 2.0, answered as 2).
func TestACPMalformedParamsStillCloseTheTurn(t *testing.T) {
	for _, tt := range []struct{ name, prompt, answer, finish string }{
		{"params not an object", `>{"jsonrpc":"2.0","id":2.0,"method":"session/prompt","params":"garbage"}`, `<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`, `["end_turn"]`},
		{"prompt of the wrong type", `>{"jsonrpc":"2.0","id":2.0,"method":"session/prompt","params":{"sessionId":"s","prompt":"hi"}}`, `<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`, `["end_turn"]`},
		{"result not an object", `>{"jsonrpc":"2.0","id":2.0,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`, `<{"jsonrpc":"2.0","id":2,"result":[1]}`, ""},
		{"an update not decodable meanwhile", `>{"jsonrpc":"2.0","id":2.0,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}` + "\n" + `<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":[]}}`, `<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`, `["end_turn"]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lines := append(strings.Split(tt.prompt, "\n"), tt.answer)
			rec := tracetest.NewSpanRecorder()
			ids := &testIDs{}
			a := ids.acp(ids.provider(rec).Tracer(""), Options{})
			d := parse.NewACPDecoder()
			at := time.Unix(1_800_000_000, 0)
			for _, l := range lines {
				m, ok := d.Decode(l[0] == '>', []byte(l[1:]))
				if !ok {
					t.Fatalf("not decoded: %s", l)
				}
				at = at.Add(time.Millisecond)
				a.Observe(m, at)
			}
			spans := rec.Ended() // before Close: the answer closed it
			if len(spans) != 1 || spans[0].Name() != "invoke_agent cursor-agent" {
				t.Fatalf("spans ended by the answer: %d", len(spans))
			}
			if got := spanAttr(spans[0], "gen_ai.response.finish_reasons"); got != tt.finish {
				t.Errorf("finish reasons %q, want %q", got, tt.finish)
			}
			if spans[0].Status().Code == codes.Error {
				t.Errorf("the turn is an error: %v", spans[0].Status())
			}
		})
	}
}
