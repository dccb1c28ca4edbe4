package parse

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A journal's events, each "<ms> <hook_event_name> [generation] [k=v…]",
// grouped into turns: what each turn holds, in the order it is built.
func TestHookTurns(t *testing.T) {
	const thought = "11111111-2222-3333-4444-555555555555"
	tests := []struct {
		name    string
		journal []string
		want    string // each turn "[steps | stops]", then starts and ends
	}{
		{"events in any order, grouped by generation",
			[]string{"30 stop g2", "0 beforeSubmitPrompt g1", "20 beforeSubmitPrompt g2", "10 afterAgentResponse g1", "25 afterAgentResponse g2", "12 stop g1"},
			"[1 3 | 5] [2 4 | 0] starts [] ends []"},
		{"a thought's copy under a suffixed id is its turn's",
			[]string{"0 beforeSubmitPrompt " + thought, "5 afterAgentThought " + thought + "-1-abc", "9 beforeSubmitPrompt g2", "10 afterAgentThought " + thought},
			"[0 1 3] [2] starts [] ends []"},
		{"an event with no generation joins the turn under way when it came",
			[]string{"0 beforeSubmitPrompt g1", "5 beforeSubmitPrompt g2", "7 afterFileEdit", "3 beforeReadFile"},
			"[0 3] [1 2] starts [] ends []"},
		{"session events belong to no turn",
			[]string{"0 sessionStart g1", "1 beforeSubmitPrompt g1", "2 preCompact g1", "9 sessionEnd g1"},
			"[1 2] starts [0] ends [3]"},
		{"a shell call told twice is one step",
			[]string{"0 beforeSubmitPrompt g1", "3 afterShellExecution g1 command=make", "4 postToolUse g1 command=make", "6 stop g1"},
			"[0 2 | 3] starts [] ends []"},
		{"a tool's start is placed no later than its end",
			[]string{"0 beforeSubmitPrompt g1", "8 preToolUse g1 id=t1", "5 postToolUse g1 id=t1"},
			"[0 1@5 2] starts [] ends []"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries := journalOf(t, tt.journal)
			var live []int
			for i := range entries {
				live = append(live, i)
			}
			sortByTime(entries, live)
			turns, starts, ends, _ := HookTurns(entries, live)
			var got []string
			for _, turn := range turns {
				order, at := turn.Steps(entries)
				var steps []string
				for _, i := range order {
					s := fmt.Sprint(i)
					if !at[i].Equal(entries[i].At) {
						s += fmt.Sprintf("@%d", at[i].Sub(hookT0).Milliseconds())
					}
					steps = append(steps, s)
				}
				n := len(order) - len(turn.Stops)
				s := "[" + strings.Join(steps[:n], " ")
				if len(turn.Stops) > 0 {
					s += " | " + strings.Join(steps[n:], " ")
				}
				got = append(got, s+"]")
			}
			got = append(got, fmt.Sprintf("starts %v ends %v", starts, ends))
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("turns:\n got %s\nwant %s", g, tt.want)
			}
		})
	}
}

// A shell call told twice keeps the output of either telling.
func TestHookTurnsShellOutput(t *testing.T) {
	entries := journalOf(t, []string{"0 beforeSubmitPrompt g1", "3 afterShellExecution g1 command=make", "4 postToolUse g1 command=make"})
	entries[1].Event.Result = "built"
	_, _, _, merged := HookTurns(entries, []int{0, 1, 2})
	if _, ok := merged[1]; ok || len(merged[2]) != 2 || entries[2].Event.Result != "built" {
		t.Errorf("merged %v, result %q: want the afterShellExecution in the postToolUse, its output kept", merged, entries[2].Event.Result)
	}
}

var hookT0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func journalOf(t *testing.T, lines []string) []HookEntry {
	t.Helper()
	var out []HookEntry
	for _, line := range lines {
		f := strings.Fields(line)
		var ms int
		if _, err := fmt.Sscan(f[0], &ms); err != nil {
			t.Fatal(err)
		}
		ev := HookEvent{Name: f[1], ConversationID: "c"}
		for _, w := range f[2:] {
			k, v, ok := strings.Cut(w, "=")
			switch {
			case !ok:
				ev.GenerationID = w
			case k == "command":
				ev.Tool = &ToolCall{Name: "shell", Facts: Facts{Command: v}}
			case k == "id":
				ev.Tool, ev.ToolKey = &ToolCall{Name: "read", ID: v}, v
			}
		}
		out = append(out, HookEntry{At: hookT0.Add(time.Duration(ms) * time.Millisecond), Event: ev})
	}
	return out
}

func sortByTime(entries []HookEntry, live []int) {
	for i := 1; i < len(live); i++ {
		for j := i; j > 0 && entries[live[j]].At.Before(entries[live[j-1]].At); j-- {
			live[j], live[j-1] = live[j-1], live[j]
		}
	}
}
