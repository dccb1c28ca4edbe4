package spanmap

import "testing"

// TestACPVersion2TurnsByState: a pair agreeing on protocol version 2 has
// session/prompt answered at once; the turn runs to state_update's idle,
// and time in requires_action is a wait on the person.
func TestACPVersion2TurnsByState(t *testing.T) {
	spans := acpScript(t,
		`>{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2}}`,
		`<{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2}}`,
		acpPrompt1,
		`<{"jsonrpc":"2.0","id":1,"result":{}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"state_update","state":"running"}}}`,
		acpChunk,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"state_update","state":"requires_action"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"state_update","state":"running"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}}}`,
		acpChunk,
	)
	roots := rootsByPrompt(spans)
	if len(roots) != 1 || turnSays(roots[0]) != `["end_turn"] Unset 6ms` {
		t.Fatalf("the v2 turn: %v", roots)
	}
	w := acpSpans(spans)["requires_action"]
	if len(w) != 1 || spanAttr(w[0], "cursor.acp.wait") != "true" || w[0].EndTime().Sub(w[0].StartTime()).Milliseconds() != 1 || w[0].Parent().SpanID() != roots[0].SpanContext().SpanID() {
		t.Errorf("the wait in requires_action: %v", w)
	}
	// Version 1: the prompt's answer ends the turn, state updates or not.
	v1 := rootsByPrompt(acpScript(t, acpPrompt1, `<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`))
	if len(v1) != 1 || turnSays(v1[0]) != `["end_turn"] Unset 1ms` {
		t.Errorf("a version 1 turn: %v", v1)
	}
}
