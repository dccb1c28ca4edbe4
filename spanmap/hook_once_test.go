package spanmap

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/parse"
)

// reload is st as the next hook process reads it back: through its JSON.
// It returns the JSON's size.
func reload(t testing.TB, st *HookState) int {
	t.Helper()
	b, err := jsonMarshal(st)
	if err != nil {
		t.Fatal(err)
	}
	*st = HookState{}
	if err := jsonUnmarshal(b, st); err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// stepAll journals events (hook_event_name|generation_id[|extra JSON]), a
// second apart, and builds them once every turn has closed; it returns
// every record made.
func stepAll(t *testing.T, events []string) []spanRecord {
	t.Helper()
	now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	var entries []parse.HookEntry
	for _, e := range events {
		name, gen, _ := strings.Cut(e, "|")
		gen, extra, _ := strings.Cut(gen, "|")
		line := fmt.Sprintf(`{"hook_event_name":%q,"conversation_id":"c-1","generation_id":%q%s}`, name, gen, extra)
		ev, err := parse.DecodeHook([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		now = now.Add(time.Second)
		entries = append(entries, parse.HookEntry{At: now, Event: ev})
	}
	var st HookState
	return NewHooks(context.Background(), nil, Options{}).Build(&st, entries, now.Add(HookIdle+time.Hour)).records()
}

// A generation's chat span is made once: events that name a generation
// after its stop (a late response, a session end that names the last
// generation) do not make it again. Each turn has its root; a
// conversation's end after its last turn was made makes no span.
func TestHookSpansMadeOnce(t *testing.T) {
	shell := `,"tool_name":"Shell","tool_input":{"command":"ls"},"tool_use_id":"t1"`
	for _, tt := range []struct {
		name   string
		events []string
		want   int
	}{
		{"two generations, stop after each, then sessionEnd",
			[]string{"sessionStart|", "beforeSubmitPrompt|g1", "stop|g1", "beforeSubmitPrompt|g2", "stop|g2", "sessionEnd|"}, 4},
		{"sessionEnd naming the first generation",
			[]string{"beforeSubmitPrompt|g1", "stop|g1", "beforeSubmitPrompt|g2", "stop|g2", "sessionEnd|g1"}, 4},
		{"sessionEnd naming the last generation",
			[]string{"beforeSubmitPrompt|g1", "stop|g1", "beforeSubmitPrompt|g2", "stop|g2", "sessionEnd|g2"}, 4},
		{"a response after its generation stopped",
			[]string{"beforeSubmitPrompt|g1", "stop|g1", "afterAgentResponse|g1", "beforeSubmitPrompt|g2", "stop|g2", "sessionEnd|"}, 4},
		{"a second stop",
			[]string{"beforeSubmitPrompt|g1", "stop|g1", "stop|g1", "sessionEnd|"}, 2},
		{"a tool ending after its generation stopped",
			[]string{"beforeSubmitPrompt|g1", "preToolUse|g1|" + shell, "stop|g1", "postToolUse|g1|" + shell, "sessionEnd|"}, 3},
		{"a turn without stop, closed by the next prompt",
			[]string{"beforeSubmitPrompt|g1", "preToolUse|g1|" + shell, "beforeSubmitPrompt|g2", "postToolUse|g1|" + shell, "stop|g2"}, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			records := stepAll(t, tt.events)
			seen := map[string]string{}
			for _, r := range records {
				if was, dup := seen[r.SpanID.String()]; dup {
					t.Errorf("span %s made twice: %s, then %s", r.SpanID, was, r.Name)
				}
				seen[r.SpanID.String()] = r.Name
			}
			if len(records) != tt.want {
				var names []string
				for _, r := range records {
					names = append(names, r.Name)
				}
				t.Errorf("%d spans %v, want %d", len(records), names, tt.want)
			}
		})
	}
}

// A state an older version wrote, with the turn it had under way, still
// reads: what crosses builds is kept, the rest ignored.
func TestHookStateOfAnOlderVersion(t *testing.T) {
	old := `{"conversation_id":"c","turns":2,"told":["x"],"turn":{"key":"g","number":2},"generations":{"g":{"turn":"g"}},` +
		`"tools":{"t":{"generation":"g"}},"subagents":{},"held":{"key":"k"}}`
	var st HookState
	if err := jsonUnmarshal([]byte(old), &st); err != nil || st.ConversationID != "c" || st.Turns != 2 || len(st.Spanned) != 1 {
		t.Errorf("read %+v, %v", st, err)
	}
}
