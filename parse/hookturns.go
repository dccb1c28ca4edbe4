package parse

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Cursor runs a hook process per event, several at once, and may kill
// one: the events of a turn arrive in any order. A journal keeps them as
// they came, and its reader groups them into turns by their generation,
// not by when they came (HookTurns), for the turn builder to take whole.

// HookEntry is a hook event as a journal keeps it: the event, when its
// hook ran, and where the hook was sending (the destination its turn's
// spans go to).
type HookEntry struct {
	At    time.Time `json:"at"`
	Dest  string    `json:"dest,omitempty"`
	Event HookEvent `json:"event"`
}

// HookTurn is a turn as a journal holds it: its entries, and its stops
// (a stop may be told twice), by their index in the journal.
type HookTurn struct {
	Start, Last    time.Time
	Members, Stops []int
}

// SessionLevel says the event belongs to the conversation, not to a
// generation, whatever generation_id it carries: it starts none.
func (e HookEvent) SessionLevel() bool {
	return e.Name == HookSessionStart || e.Name == HookSessionEnd || e.Name == HookPreCompact
}

// TurnGeneration is the generation whose turn the event belongs to: a
// thought's copy under a suffixed id is its turn's.
func (e HookEvent) TurnGeneration() string {
	if base, ok := ThoughtCopyOf(e.GenerationID); ok && e.Name == HookThought {
		return base
	}
	return e.GenerationID
}

// ThoughtCopyOf is the generation a thought's copy names under a
// suffixed id (a UUID, a dash and more); false for any other id.
func ThoughtCopyOf(gen string) (string, bool) {
	if len(gen) > 37 && gen[36] == '-' && isUUID(gen[:36]) {
		return gen[:36], true
	}
	return gen, false
}

// isUUID says s is a UUID's text: 8-4-4-4-12 hexadecimal digits.
func isUUID(s string) bool {
	for i, c := range s {
		if dash := i == 8 || i == 13 || i == 18 || i == 23; dash != (c == '-') || !dash && !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return len(s) == 36
}

// HookTurns sorts the live entries (their indexes, in time order) into
// turns, in the order they began: a generation with a prompt or a stop
// is a turn of its own, whenever its events came (a prompt naming no
// generation opens one when it came); any other event joins the turn
// under way when it came. starts are sessionStart's, ends sessionEnd's.
// A shell call told twice is one entry (pairShellTellings): merged says,
// by the entry kept, the entries it stands for, and the entry kept takes
// the other's output in place (entries is changed).
func HookTurns(entries []HookEntry, live []int) (turns []*HookTurn, starts, ends []int, merged map[int][]int) {
	merged = pairShellTellings(entries, live)
	byGen := map[string]*HookTurn{} // generation: its turn
	for _, i := range live {
		ev := entries[i].Event
		gen := ev.TurnGeneration()
		if ev.Name == HookPrompt || ev.Name == HookStop && gen != "" {
			if gen == "" || byGen[gen] == nil {
				turns = append(turns, &HookTurn{Start: entries[i].At})
			}
			if gen != "" && byGen[gen] == nil {
				byGen[gen] = turns[len(turns)-1]
			}
		}
	}
	for _, i := range live {
		if t := byGen[entries[i].Event.TurnGeneration()]; t != nil && !entries[i].Event.SessionLevel() {
			t.Start = earliest(t.Start, entries[i].At)
		}
	}
	slices.SortStableFunc(turns, func(a, b *HookTurn) int { return a.Start.Compare(b.Start) })
	for _, i := range live {
		ev := entries[i].Event
		gen := ev.TurnGeneration()
		if _, kept := merged[i]; !kept {
			continue // told again: in the event it merged into
		}
		switch ev.Name {
		case HookSessionStart:
			starts = append(starts, i)
			continue
		case HookSessionEnd:
			ends = append(ends, i)
			continue
		}
		t := byGen[gen]
		if t == nil {
			// The turn under way when it came: the last begun by then.
			if len(turns) == 0 {
				turns = append(turns, &HookTurn{Start: entries[i].At})
			}
			t = turns[0]
			for _, u := range turns {
				if !u.Start.After(entries[i].At) {
					t = u
				}
			}
			if gen != "" && !ev.SessionLevel() {
				byGen[gen] = t
			}
		}
		if entries[i].At.After(t.Last) {
			t.Last = entries[i].At
		}
		if ev.Name == HookStop {
			t.Stops = append(t.Stops, i)
		} else {
			t.Members = append(t.Members, i)
		}
	}
	return turns, starts, ends, merged
}

// Steps are a turn's entries in the order they are built, and when: each
// at its own time, but a tool's start no later than its end (hooks of
// parallel calls finish in any order) and before it; its stops last.
func (t *HookTurn) Steps(entries []HookEntry) (order []int, at map[int]time.Time) {
	ended := map[string]time.Time{} // a tool's end, by its key
	for _, i := range t.Members {
		if e := entries[i].Event; e.EndsTool() {
			ended[e.ToolKey] = earliest(ended[e.ToolKey], entries[i].At)
		}
	}
	order, at = slices.Clone(t.Members), map[int]time.Time{}
	for _, i := range append(order, t.Stops...) {
		at[i] = entries[i].At
		if end, ok := ended[entries[i].Event.ToolKey]; ok && entries[i].Event.StartsTool() && end.Before(at[i]) {
			at[i] = end
		}
	}
	late := func(i int) int { // a start goes before what came at its time
		if entries[i].Event.StartsTool() {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Or(at[a].Compare(at[b]), late(a)-late(b)) })
	return append(order, t.Stops...), at
}

// pairShellTellings makes one event of a shell call told twice
// (afterShellExecution, then postToolUse or postToolUseFailure): the
// k-th telling of a command in a generation without a tool_use_id pairs
// with the k-th of the other kind. The event kept gets the other's
// output; merged says, by the entry kept, the entries it stands for
// (itself included), and has no key for the other.
func pairShellTellings(entries []HookEntry, live []int) map[int][]int {
	merged := map[int][]int{}
	type key struct{ gen, command string }
	posts := map[key][]int{}
	for _, i := range live {
		merged[i] = []int{i}
		ev := entries[i].Event
		if (ev.Name == HookPostToolUse || ev.Name == HookPostToolUseFailure) && ev.Tool != nil && ev.Tool.Name == "shell" && ev.Tool.Facts.Command != "" {
			k := key{ev.TurnGeneration(), ev.Tool.Facts.Command}
			posts[k] = append(posts[k], i)
		}
	}
	for _, i := range live {
		ev := entries[i].Event
		if ev.Name != HookAfterShell || ev.Tool == nil {
			continue
		}
		k := key{ev.TurnGeneration(), ev.Tool.Facts.Command}
		if len(posts[k]) == 0 {
			continue
		}
		j := posts[k][0]
		posts[k] = posts[k][1:]
		post := &entries[j].Event
		post.Result = cmp.Or(post.Result, ev.Result)
		merged[j] = append(merged[j], i)
		delete(merged, i)
	}
	return merged
}

// earliest is the earlier of a and b, or b when a is the zero time.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}
