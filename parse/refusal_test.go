package parse

import "testing"

// A call a hook refused is a rejection, whichever shape cursor-agent gives
// it (an error for read, glob and edit; a rejection for shell), with the
// hook's reason and without the notes cursor-agent adds for the model. An
// error that is no refusal stays an error.
func TestHookRefusals(t *testing.T) {
	const note = `\n\nAgent note: Do not suggest workarounds to the blocked tool.`
	for _, tt := range []struct {
		name, call, result string
		outcome            Outcome
		message            string
	}{
		{"read, preToolUse exit 2", "readToolCall", `{"error":{"errorMessage":"Hook blocked with message: READ-BLOCK-MSG` + note + `"}}`, Rejected, "Hook blocked with message: READ-BLOCK-MSG"},
		{"read, beforeReadFile", "readToolCall", `{"error":{"errorMessage":"File read was blocked by a hook: no\n\nTo view or modify configured hooks, go to Cursor Settings > Hooks.` + note + `"}}`, Rejected, "File read was blocked by a hook: no"},
		{"glob, error.error", "globToolCall", `{"error":{"error":"Glob blocked by preToolUse hook: no .env"}}`, Rejected, "Glob blocked by preToolUse hook: no .env"},
		{"edit, a JSON deny", "editToolCall", `{"error":{"path":"","error":"WRITE-DENY-MSG` + note + `","modelVisibleError":"WRITE-DENY-MSG` + note + `"}}`, Rejected, "WRITE-DENY-MSG"},
		{"shell, rejected", "shellToolCall", `{"rejected":{"command":"echo DENYME","workingDirectory":"","reason":"USER-DENY-MSG` + note + `","isReadonly":false}}`, Rejected, "USER-DENY-MSG"},
		{"read, a file not found", "readToolCall", `{"error":{"errorMessage":"File not found: a.txt"}}`, Failed, "File not found: a.txt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			line := `{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"` + tt.call + `":{"result":` + tt.result + `}},"session_id":"s"}`
			ev, ok := Decode([]byte(line), 1).(*ToolCompleted)
			if !ok {
				t.Fatalf("decoded as %T", Decode([]byte(line), 1))
			}
			if ev.Result.Outcome != tt.outcome || ev.Result.Message != tt.message {
				t.Errorf("outcome %q, message %q; want %q, %q", ev.Result.Outcome, ev.Result.Message, tt.outcome, tt.message)
			}
		})
	}
}
