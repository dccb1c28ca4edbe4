package spanmap

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/parse"
)

// hookEventNames are the events a hook program is made of.
var hookEventNames = []string{"beforeSubmitPrompt", "preToolUse", "postToolUse", "postToolUseFailure", "afterShellExecution",
	"afterAgentResponse", "afterAgentThought", "stop", "subagentStart", "subagentStop", "preCompact", "sessionStart", "sessionEnd"}

// hookProgramLine is one hook event of a program: b picks the event, g
// the generation (from a small set, or none), k the tool call and the
// minutes that pass before it.
func hookProgramLine(b, g, k byte) string {
	name := hookEventNames[int(b)%len(hookEventNames)]
	gen := ""
	if g%5 != 0 {
		gen = fmt.Sprintf("g%d", g%5)
	}
	line := fmt.Sprintf(`{"hook_event_name":%q,"conversation_id":"c","generation_id":%q,"model":"m"`, name, gen)
	switch name {
	case "preToolUse", "postToolUse", "postToolUseFailure":
		line += fmt.Sprintf(`,"tool_name":"Shell","tool_input":{"command":"ls %d"},"tool_use_id":"t%d","duration":%d`, k%3, k%3, k%7)
	case "afterShellExecution":
		line += fmt.Sprintf(`,"command":"ls %d","duration":%d`, k%3, k%7)
	case "subagentStart", "subagentStop":
		line += fmt.Sprintf(`,"subagent_id":"s%d","subagent_type":"explore","duration_ms":%d`, k%2, k%5)
	case "afterAgentThought":
		line += fmt.Sprintf(`,"text":"thought %d","duration_ms":%d`, k%2, k%4)
	case "preCompact":
		line += `,"trigger":"auto"`
	case "stop":
		line += fmt.Sprintf(`,"status":%q,"input_tokens":10,"output_tokens":2`, []string{"completed", "error", "aborted"}[k%3])
	case "sessionEnd":
		line += fmt.Sprintf(`,"reason":%q,"duration_ms":60000`, []string{"completed", "error", "aborted", "window_close"}[k%4])
	}
	return line + "}"
}

// A hook program: each three bytes make one hook event (see
// hookProgramLine), in any order, each a process of its own journaling
// it, minutes passing between some, and a build after each (the state
// read back from JSON, the entries used taken out). Whatever the
// program, once every turn is closed: no span is made twice, every trace
// has one root, every span's parent is in its trace, no span ends before
// it starts, every span names the conversation; and a conversation's
// state stays bounded.
func FuzzHookTurns(f *testing.F) {
	f.Add([]byte{11, 0, 0, 0, 1, 0, 1, 1, 1, 2, 1, 1, 5, 1, 0, 7, 1, 0, 12, 0, 0})          // a turn, then the end
	f.Add([]byte{0, 1, 0, 1, 1, 1, 0, 2, 0, 2, 1, 1, 7, 2, 0, 7, 1, 0})                     // the next prompt first, then a late stop
	f.Add([]byte{0, 1, 0, 8, 1, 0, 9, 1, 0, 4, 1, 2, 3, 1, 2, 6, 3, 1, 10, 0, 0, 12, 0, 3}) // subagents, shell told twice, a thought
	f.Add([]byte{1, 0, 1, 2, 0, 1, 6, 1, 0x40, 7, 0, 0, 7, 0, 0})                           // no generation; an hour passes
	f.Fuzz(func(t *testing.T, program []byte) {
		if len(program) > 3*500 {
			return
		}
		h := NewHooks(context.Background(), nil, Options{CaptureContent: len(program)%2 == 1, MaxContent: 32})
		var st HookState
		var records []spanRecord
		var entries []parse.HookEntry
		build := func(now time.Time) {
			if n := reload(t, &st); n > 64<<10 {
				t.Fatalf("the conversation's state is %d bytes", n)
			}
			b := h.Build(&st, entries, now)
			records = append(records, b.records()...)
			entries = unused(t, entries, b.Used)
		}
		now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
		for i := 0; i+2 < len(program); i += 3 {
			ev, err := parse.DecodeHook([]byte(hookProgramLine(program[i], program[i+1], program[i+2])))
			if err != nil {
				t.Fatal(err)
			}
			now = now.Add(time.Second + time.Duration(program[i+2]>>6)*20*time.Minute)
			entries = append(entries, parse.HookEntry{At: now, Event: ev})
			build(now)
		}
		build(now.Add(HookIdle + time.Hour))
		if len(entries) != 0 {
			t.Fatalf("after the last turn closed: %d entries left", len(entries))
		}
		checkBuilt(t, records) // no span twice, one root a trace, every parent in it
		for _, r := range records {
			if Value(r.Attrs, ConversationID).AsString() != "c" {
				t.Fatalf("%s names conversation %q", r.Name, Value(r.Attrs, ConversationID).AsString())
			}
		}
	})
}
