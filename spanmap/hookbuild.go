package spanmap

import (
	"cmp"
	"slices"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// Cursor runs a hook process per event, several at once, and may kill
// one: the events of a turn arrive in any order. A conversation's events
// are therefore kept as they come (a journal) and a turn's spans are
// built once, from all its events, when it has closed: events are
// grouped into turns by their generation, not by when they came, and a
// turn is built a grace after what closes it, so that after-hooks of
// parallel calls still finishing are in it.

// HookGrace is how long after what closes a turn (its stop, the next
// prompt, the session's end) its late events still belong to it.
const HookGrace = 2 * time.Second

// HookIdle is how long a turn may be silent before it is closed,
// incomplete.
const HookIdle = 30 * time.Minute

// HookEntry is a hook event as a journal keeps it: the event, when its
// hook ran, and where the hook was sending (the destination its turn's
// spans go to).
type HookEntry struct {
	At    time.Time       `json:"at"`
	Dest  string          `json:"dest,omitempty"`
	Event parse.HookEvent `json:"event"`
}

// HookBuilt is what Build made of a conversation's journal.
type HookBuilt struct {
	// Dest is the destination of each trace built: its turn's last
	// event's that names one.
	Dest map[trace.TraceID]string
	// Used are the entries whose events are in the spans built, or came
	// too late for a turn built before (Late counts those): the journal
	// may let them go once the spans are kept.
	Used []int
	Late int
	// Ends are the conversation's ends that came after its last turn
	// was built: no span, for the reports.
	Ends []HookSessionEnd
	// Again is when a turn waiting for its grace may be built; zero when
	// none waits.
	Again time.Time
	spans []*draft // the turns' spans, each turn's root after its children
}

// Make makes the spans built for dest, through h's builder: the caller
// knows, before, where each trace's report goes.
func (h *Hooks) Make(built HookBuilt, dest string) {
	for _, p := range built.spans {
		if built.Dest[p.sc.TraceID()] == dest {
			h.emit(p)
		}
	}
}

// hookTurnOf is a turn as Build finds it in a journal: its entries, and
// its stops (a stop may be told twice).
type hookTurnOf struct {
	start, last    time.Time
	members, stops []int
}

// Build builds the journal's turns closed by now (a grace after its stop,
// the next prompt or the session's end, or idle for HookIdle), oldest
// first, each whole from its events, and keeps what crosses turns in st.
// Turns still open are left for a later Build, and so is every turn
// after one: a turn links to the one before it.
func (h *Hooks) Build(st *HookState, entries []HookEntry, now time.Time) HookBuilt {
	out := HookBuilt{Dest: map[trace.TraceID]string{}}
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return entries[a].At.Compare(entries[b].At) })
	var live []int // entries of turns not built before
	for _, i := range order {
		if _, closed := st.closedTurn(baseGeneration(entries, i)); closed && !sessionLevel(entries[i].Event.Name) {
			out.Used = append(out.Used, i)
			out.Late++
		} else {
			live = append(live, i)
		}
	}
	merged := pairShellTellings(entries, live)
	turns, starts, ends := groupTurns(entries, live, merged)
	for _, i := range starts {
		st.see(entries[i].Event, entries[i].At)
		out.Used = append(out.Used, i)
	}
	wait := func(at time.Time) {
		if out.Again.IsZero() || at.Before(out.Again) {
			out.Again = at
		}
	}
	// say says the sessionEnds that came before until (zero: all), each
	// once ready; false when one is not.
	say := func(until time.Time) bool {
		for ; len(ends) > 0 && (until.IsZero() || entries[ends[0]].At.Before(until)); ends = ends[1:] {
			e := entries[ends[0]]
			if ready := e.At.Add(HookGrace); now.Before(ready) {
				wait(ready)
				return false
			}
			if said, ok := h.said(st, e); ok {
				out.Ends = append(out.Ends, said)
			}
			out.Used = append(out.Used, ends[0])
		}
		return true
	}
	for n, tt := range turns {
		if !say(tt.start) {
			return out
		}
		end := -1 // the sessionEnd that came while it was under way
		if len(ends) > 0 && (n+1 == len(turns) || entries[ends[0]].At.Before(turns[n+1].start)) {
			end = ends[0]
		}
		how, ready := TurnEndIdle, tt.last.Add(HookIdle)
		switch {
		case len(tt.stops) > 0:
			how, ready = TurnEndStop, later(entries[tt.stops[0]].At, tt.last).Add(HookGrace)
		case end >= 0:
			how, ready = TurnEndSession, later(entries[end].At, tt.last).Add(HookGrace)
		case n+1 < len(turns):
			how, ready = TurnEndNextPrompt, later(turns[n+1].start, tt.last).Add(HookGrace)
		}
		if now.Before(ready) {
			if how != TurnEndIdle {
				wait(ready)
			}
			return out
		}
		t, dest := h.newTurn(st), ""
		order, at := tt.steps(entries)
		for _, i := range order {
			t.add(entries[i].Event, at[i])
			out.Used = append(out.Used, merged[i]...)
			if d := entries[i].Dest; d != "" {
				dest = d
			}
		}
		if t.key == "" {
			continue // nothing opened it: a sessionEnd it did not take is said apart
		}
		var ending *HookEntry // the conversation's end, which the turn carries
		if end >= 0 {
			ending, ends = &entries[end], ends[1:]
		}
		switch how {
		case TurnEndStop:
			t.close(cmp.Or(t.stopped, entries[tt.stops[0]].At), how, ending)
		case TurnEndSession:
			t.add(ending.Event, ending.At) // what it says of the conversation
			dest = cmp.Or(ending.Dest, dest)
			t.close(ending.At, how, ending)
		default:
			t.close(t.last, how, nil)
		}
		if end >= 0 {
			out.Used = append(out.Used, end)
		}
		out.Dest[turnTraceID(st.ConversationID, t.key)] = dest
		out.spans = append(out.spans, t.spans...)
	}
	say(time.Time{})
	return out
}

// steps are a turn's entries in the order they are built, and when: each
// at its own time, but a tool's start no later than its end (hooks of
// parallel calls finish in any order) and before it; its stops last.
func (t *hookTurnOf) steps(entries []HookEntry) (order []int, at map[int]time.Time) {
	ended := map[string]time.Time{} // a tool's end, by its key
	for _, i := range t.members {
		if e := entries[i].Event; e.EndsTool() {
			ended[e.ToolKey] = earlier(ended[e.ToolKey], entries[i].At)
		}
	}
	order, at = slices.Clone(t.members), map[int]time.Time{}
	for _, i := range append(order, t.stops...) {
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
	return append(order, t.stops...), at
}

// baseGeneration is the generation entry i belongs to: a thought's copy
// under a suffixed id is its turn's.
func baseGeneration(entries []HookEntry, i int) string {
	ev := entries[i].Event
	if base, ok := thoughtCopyOf(ev.GenerationID); ok && ev.Name == parse.HookThought {
		return base
	}
	return ev.GenerationID
}

// thoughtCopyOf is the generation a thought's copy names under a
// suffixed id (a UUID, a dash and more); false for any other id.
func thoughtCopyOf(gen string) (string, bool) {
	if len(gen) > 37 && gen[36] == '-' && isUUID(gen[:36]) {
		return gen[:36], true
	}
	return gen, false
}

// pairShellTellings makes one event of a shell call told twice
// (afterShellExecution, then postToolUse or postToolUseFailure): the
// k-th telling of a command in a generation without a tool_use_id pairs
// with the k-th of the other kind. The event kept gets the other's
// output; merged says, by the entry kept, the entries it stands for
// (itself included), and the other is left out of live.
func pairShellTellings(entries []HookEntry, live []int) map[int][]int {
	merged := map[int][]int{}
	type key struct{ gen, command string }
	posts := map[key][]int{}
	for _, i := range live {
		merged[i] = []int{i}
		ev := entries[i].Event
		if (ev.Name == parse.HookPostToolUse || ev.Name == parse.HookPostToolUseFailure) && ev.Tool != nil && ev.Tool.Name == "shell" && ev.Tool.Facts.Command != "" {
			k := key{baseGeneration(entries, i), ev.Tool.Facts.Command}
			posts[k] = append(posts[k], i)
		}
	}
	for _, i := range live {
		ev := entries[i].Event
		if ev.Name != parse.HookAfterShell || ev.Tool == nil {
			continue
		}
		k := key{baseGeneration(entries, i), ev.Tool.Facts.Command}
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

// groupTurns sorts the live entries (in time order) into turns: a
// generation with a prompt or a stop is a turn of its own, whenever its
// events came (a prompt naming no generation opens one when it came);
// any other event joins the turn under way when it came. starts are
// sessionStart's (seen before any turn), ends sessionEnd's.
func groupTurns(entries []HookEntry, live []int, merged map[int][]int) (turns []*hookTurnOf, starts, ends []int) {
	byGen := map[string]*hookTurnOf{} // generation: its turn
	for _, i := range live {
		ev, gen := entries[i].Event, baseGeneration(entries, i)
		if ev.Name == parse.HookPrompt || ev.Name == parse.HookStop && gen != "" {
			if gen == "" || byGen[gen] == nil {
				turns = append(turns, &hookTurnOf{start: entries[i].At})
			}
			if gen != "" && byGen[gen] == nil {
				byGen[gen] = turns[len(turns)-1]
			}
		}
	}
	for _, i := range live {
		if t := byGen[baseGeneration(entries, i)]; t != nil && !sessionLevel(entries[i].Event.Name) {
			t.start = earlier(t.start, entries[i].At)
		}
	}
	slices.SortStableFunc(turns, func(a, b *hookTurnOf) int { return a.start.Compare(b.start) }) // in the order they began
	for _, i := range live {
		ev, gen := entries[i].Event, baseGeneration(entries, i)
		if _, kept := merged[i]; !kept {
			continue // told again: in the event it merged into
		}
		switch ev.Name {
		case parse.HookSessionStart:
			starts = append(starts, i)
			continue
		case parse.HookSessionEnd:
			ends = append(ends, i)
			continue
		}
		t := byGen[gen]
		if t == nil {
			// The turn under way when it came: the last begun by then.
			if len(turns) == 0 {
				turns = append(turns, &hookTurnOf{start: entries[i].At})
			}
			t = turns[0]
			for _, u := range turns {
				if !u.start.After(entries[i].At) {
					t = u
				}
			}
			if gen != "" && !sessionLevel(ev.Name) {
				byGen[gen] = t
			}
		}
		t.last = later(t.last, entries[i].At)
		if ev.Name == parse.HookStop {
			t.stops = append(t.stops, i)
		} else {
			t.members = append(t.members, i)
		}
	}
	return turns, starts, ends
}
