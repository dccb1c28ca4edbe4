package spanmap

import (
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/cursor-otel/cursor-otel/parse"
)

// TestACPSessionLife: the session's mode on each turn, its title only as
// content, compaction an event, a fork continuing its original's chain,
// and session/load's replay never a turn.
func TestACPSessionLife(t *testing.T) {
	lines := []string{
		`>{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"a","cwd":"/w","mcpServers":[]}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"old prompt"}}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"old","kind":"read","status":"completed"}}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"modes":{"currentModeId":"ask","availableModes":[]}}}`,
		acpPrompt1,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"session_info_update","title":"Fix the flaky test"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"compaction_update","status":"completed"}}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
		`>{"jsonrpc":"2.0","id":2,"method":"session/set_mode","params":{"sessionId":"a","modeId":"agent"}}`,
		`<{"jsonrpc":"2.0","id":2,"result":{}}`,
		acpPrompt2,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"current_mode_update","currentModeId":"plan"}}}`,
		`<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`,
		`>{"jsonrpc":"2.0","id":3,"method":"session/fork","params":{"sessionId":"a","cwd":"/w","mcpServers":[]}}`,
		`<{"jsonrpc":"2.0","id":3,"result":{"sessionId":"b"}}`,
		`>{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"b","prompt":[]}}`,
		`<{"jsonrpc":"2.0","id":4,"result":{"stopReason":"end_turn"}}`,
	}
	for _, capture := range []bool{false, true} {
		spans := acpScriptWith(t, Options{CaptureContent: capture, MaxContent: DefaultMaxContent}, lines...)
		roots := rootsByPrompt(spans)
		if len(roots) != 3 {
			t.Fatalf("want 3 turns (the replay is none), got %d", len(roots))
		}
		if by := acpSpans(spans); len(by["execute_tool read"]) != 0 {
			t.Errorf("the replayed tool call became a span")
		}
		for i, want := range []string{"ask", "plan", ""} {
			if got := spanAttr(roots[i], "cursor.composer_mode"); got != want {
				t.Errorf("turn %d's mode %q, want %q", i+1, got, want)
			}
		}
		title := map[bool]string{true: "Fix the flaky test"}[capture]
		if got := spanAttr(roots[0], "cursor.session.title"); got != title {
			t.Errorf("capture %v: title %q, want %q", capture, got, title)
		}
		compactions := 0
		for _, ev := range roots[0].Events() {
			if ev.Name == EventCompaction {
				compactions++
			}
		}
		if compactions != 1 {
			t.Errorf("compaction events: %d", compactions)
		}
		if l := roots[2].Links(); len(l) != 1 || l[0].SpanContext.SpanID() != roots[1].SpanContext().SpanID() || spanAttr(roots[2], "gen_ai.conversation.id") != "b" {
			t.Errorf("the fork's first turn does not continue its original's chain: %v", l)
		}
	}
}

// TestACPSessionClosedIsForgotten: a closed session's state is dropped
// (an editor open for days opens many), and one with a turn open is kept
// until that turn's answer.
func TestACPSessionClosedIsForgotten(t *testing.T) {
	a := (&testIDs{}).acp(noop.NewTracerProvider().Tracer(""), Options{})
	at := time.Unix(1_800_000_000, 0)
	d := parse.NewACPDecoder()
	for _, l := range []string{
		acpNewSession, acpNewSessionA,
		`>{"jsonrpc":"2.0","id":"c","method":"session/close","params":{"sessionId":"a"}}`,
		`<{"jsonrpc":"2.0","id":"c","result":{}}`,
		`>{"jsonrpc":"2.0","id":"p","method":"session/prompt","params":{"sessionId":"b","prompt":[]}}`,
		`>{"jsonrpc":"2.0","id":"d","method":"session/close","params":{"sessionId":"b"}}`,
		`<{"jsonrpc":"2.0","id":"d","result":{}}`,
	} {
		m, _ := d.Decode(l[0] == '>', []byte(l[1:]))
		a.Observe(m, at)
	}
	if _, ok := a.sessions["a"]; ok {
		t.Errorf("the closed session is still held")
	}
	if _, ok := a.sessions["b"]; !ok {
		t.Errorf("the session with a turn open was dropped before its answer")
	}
}
