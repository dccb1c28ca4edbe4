package hook

import (
	"strings"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/redact"
	"github.com/cursor-otel/cursor-otel/parse"
)

// An event's identifiers are kept as given even when the redactor takes
// them for secrets (a conversation id kept in a variable named so); its
// text is redacted; and a call without tool_use_id makes the same key
// from its before and after events, redacted.
func TestRedactedEvent(t *testing.T) {
	const conv = "5d0c6b1a-2e3f-4a5b-9c8d-7e6f5a4b3c2d"
	r := redact.New(redact.Options{Literals: []string{conv, "gen-secretish", "tool-secretish"}})
	token := "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	ev, err := parse.DecodeHook([]byte(`{"hook_event_name":"postToolUse","conversation_id":"` + conv + `","generation_id":"gen-secretish",` +
		`"tool_name":"Shell","tool_use_id":"tool-secretish","tool_input":{"command":"curl -H 'Authorization: Bearer ` + token + `' https://x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := redacted(ev, r)
	if got.ConversationID != conv || got.GenerationID != "gen-secretish" || got.Tool.ID != "tool-secretish" || got.ToolKey != "tool-secretish" {
		t.Errorf("identifiers changed: %q %q %q %q", got.ConversationID, got.GenerationID, got.Tool.ID, got.ToolKey)
	}
	if strings.Contains(got.Tool.Facts.Command, token) || strings.Contains(got.Tool.Args, token) {
		t.Errorf("the token is still there: %q %q", got.Tool.Facts.Command, got.Tool.Args)
	}
	var keys []string
	for _, name := range []string{parse.HookBeforeShell, parse.HookAfterShell} {
		ev, err := parse.DecodeHook([]byte(`{"hook_event_name":"` + name + `","conversation_id":"c","command":"curl -H 'Authorization: Bearer ` + token + `' https://x","cwd":"/w"}`))
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, redacted(ev, r).ToolKey)
	}
	if keys[0] != keys[1] || strings.Contains(keys[0], token) {
		t.Errorf("the shell call's keys %q", keys)
	}
}
