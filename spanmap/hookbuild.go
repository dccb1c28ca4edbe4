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
	Records []SpanRecord
	// Dest is the destination of each trace built: its turn's last
	// event's.
	Dest map[trace.TraceID]string
	// Used are the entries whose events are in Records, or came too late
	// for a turn built before (Late counts those): the journal may let
	// them go once Records are kept.
	Used []int
	Late int
	// Again is when a turn waiting for its grace may be built; zero when
	// none waits.
	Again time.Time
}

// hookTurnOf is a turn as Build finds it in a journal.
type hookTurnOf struct {
	start   time.Time
	members []int // entries, in the order they are stepped
	stop    int   // the entry of its stop; -1 for none
	last    time.Time
}

// Build steps st through the journal's entries of every turn closed by
// now (a grace after its stop, the next prompt or the session's end, or
// idle for HookIdle), oldest turn first, and returns their spans. Turns
// still open are left for a later Build, and so is every turn after one:
// a turn links to the one before it.
func (h *Hooks) Build(st *HookState, entries []HookEntry, now time.Time) HookBuilt {
	out := HookBuilt{Dest: map[trace.TraceID]string{}}
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return entries[a].At.Compare(entries[b].At) })

	var live []int // entries of turns not built before
	for _, i := range order {
		ev := entries[i].Event
		if _, closed := closedTurn(st, baseGeneration(entries, i)); closed && !sessionLevel(ev.Name) {
			out.Used = append(out.Used, i)
			out.Late++
			continue
		}
		live = append(live, i)
	}
	merged := pairShellTellings(entries, live)
	turns, starts, ends := groupTurns(entries, live, merged)

	for _, i := range starts {
		h.stepAt(st, entries, i, entries[i].At, &out)
	}
	wait := func(at time.Time) {
		if out.Again.IsZero() || at.Before(out.Again) {
			out.Again = at
		}
	}
	// endAt steps the sessionEnds that came before until, once ready.
	endsDone := 0
	endsBefore := func(until time.Time, unbounded bool) bool {
		for ; endsDone < len(ends); endsDone++ {
			i := ends[endsDone]
			if !unbounded && !entries[i].At.Before(until) {
				return true
			}
			if ready := entries[i].At.Add(HookGrace); now.Before(ready) {
				wait(ready)
				return false
			}
			h.stepAt(st, entries, i, entries[i].At, &out)
		}
		return true
	}
	for n, t := range turns {
		if !endsBefore(t.start, false) {
			return out
		}
		next, hasNext := time.Time{}, n+1 < len(turns)
		if hasNext {
			next = turns[n+1].start
		}
		end := -1 // the sessionEnd that came while it was under way
		if endsDone < len(ends) && (!hasNext || entries[ends[endsDone]].At.Before(next)) {
			end = ends[endsDone]
		}
		var ready time.Time
		how := TurnEndIdle
		switch {
		case t.stop >= 0:
			ready, how = later(entries[t.stop].At, t.last).Add(HookGrace), TurnEndStop
		case end >= 0:
			ready, how = later(entries[end].At, t.last).Add(HookGrace), TurnEndSession
		case hasNext:
			ready, how = later(next, t.last).Add(HookGrace), TurnEndNextPrompt
		default:
			ready = t.last.Add(HookIdle)
		}
		if now.Before(ready) {
			if how != TurnEndIdle {
				wait(ready)
			}
			return out
		}
		order, at := t.steps(entries)
		for _, i := range order {
			h.stepAt(st, entries, i, at[i], &out)
			out.Used = append(out.Used, merged[i][1:]...)
		}
		switch {
		case st.Turn == nil: // its stop closed it
		case how == TurnEndSession:
			h.stepAt(st, entries, end, entries[end].At, &out)
			endsDone++
		case how == TurnEndStop: // a stop naming no generation
			out.add(entries, t, h.closeTurn(st, entries[t.stop].At, TurnEndStop, "", 0))
		case how == TurnEndNextPrompt:
			out.add(entries, t, h.closeTurn(st, st.Turn.Last, TurnEndNextPrompt, "", 0))
		default:
			out.add(entries, t, h.CloseIdle(st))
		}
	}
	endsBefore(time.Time{}, true)
	return out
}

// stepAt steps st by entry i at time at, keeping what it finishes.
func (h *Hooks) stepAt(st *HookState, entries []HookEntry, i int, at time.Time, out *HookBuilt) {
	records := h.Step(st, entries[i].Event, at)
	for _, r := range records {
		if _, ok := out.Dest[r.TraceID]; !ok || entries[i].Dest != "" {
			out.Dest[r.TraceID] = entries[i].Dest
		}
	}
	out.Records = append(out.Records, records...)
	out.Used = append(out.Used, i)
}

// add keeps records a turn's closing made, under its destination.
func (out *HookBuilt) add(entries []HookEntry, t hookTurnOf, records []SpanRecord) {
	dest := ""
	if len(t.members) > 0 {
		dest = entries[t.members[len(t.members)-1]].Dest
	}
	for _, r := range records {
		if _, ok := out.Dest[r.TraceID]; !ok {
			out.Dest[r.TraceID] = dest
		}
	}
	out.Records = append(out.Records, records...)
}

// steps are a turn's entries in the order they are stepped, and when:
// each at its own time, but a tool's start no later than its end (hooks
// of parallel calls finish in any order) and before it; the stop (and
// any copy of it) last.
func (t hookTurnOf) steps(entries []HookEntry) (order []int, at map[int]time.Time) {
	ended := map[string]time.Time{} // a tool's end, by its key
	for _, i := range t.members {
		if e := entries[i].Event; e.EndsTool() {
			ended[e.ToolKey] = earlier(ended[e.ToolKey], entries[i].At)
		}
	}
	at = make(map[int]time.Time, len(t.members))
	for _, i := range t.members {
		at[i] = entries[i].At
		if e := entries[i].Event; e.StartsTool() {
			if end, ok := ended[e.ToolKey]; ok && end.Before(at[i]) {
				at[i] = end
			}
		}
	}
	n := len(t.members)
	if t.stop >= 0 {
		n = slices.Index(t.members, t.stop)
	}
	order = slices.Clone(t.members)
	slices.SortStableFunc(order[:n], func(a, b int) int {
		if c := at[a].Compare(at[b]); c != 0 {
			return c
		}
		sa, sb := entries[a].Event.StartsTool(), entries[b].Event.StartsTool()
		switch {
		case sa && !sb:
			return -1
		case sb && !sa:
			return 1
		}
		return 0
	})
	return order, at
}

// baseGeneration is the generation entry i belongs to: a thought's copy
// under a suffixed id is its turn's.
func baseGeneration(entries []HookEntry, i int) string {
	ev := entries[i].Event
	gen := ev.GenerationID
	if ev.Name == parse.HookThought && len(gen) > 37 && gen[36] == '-' && isUUID(gen[:36]) {
		return gen[:36]
	}
	return gen
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
// any other event joins the turn under way when it came. A turn's stop
// is stepped after its other events: after-hooks that came after it are
// still the turn's. starts are sessionStart's (stepped before any turn),
// ends sessionEnd's.
func groupTurns(entries []HookEntry, live []int, merged map[int][]int) (turns []hookTurnOf, starts, ends []int) {
	byGen := map[string]int{} // generation: its turn
	for _, i := range live {
		ev := entries[i].Event
		gen := baseGeneration(entries, i)
		if ev.Name != parse.HookPrompt && (ev.Name != parse.HookStop || gen == "") {
			continue
		}
		if _, ok := byGen[gen]; gen == "" || !ok {
			if gen != "" {
				byGen[gen] = len(turns)
			}
			turns = append(turns, hookTurnOf{start: entries[i].At, stop: -1})
		}
	}
	for _, i := range live {
		if n, ok := byGen[baseGeneration(entries, i)]; ok && !sessionLevel(entries[i].Event.Name) {
			turns[n].start = earlier(turns[n].start, entries[i].At)
		}
	}
	// Turns in the order they began.
	rank := make([]int, len(turns))
	for i := range rank {
		rank[i] = i
	}
	slices.SortStableFunc(rank, func(a, b int) int { return turns[a].start.Compare(turns[b].start) })
	sorted := make([]hookTurnOf, len(turns))
	where := make([]int, len(turns))
	for to, from := range rank {
		sorted[to], where[from] = turns[from], to
	}
	turns = sorted
	for gen, n := range byGen {
		byGen[gen] = where[n]
	}

	after := make([][]int, len(turns)) // stepped after the stop: a stop told twice
	for _, i := range live {
		if _, kept := merged[i]; !kept {
			continue // told again: in the event it merged into
		}
		ev := entries[i].Event
		switch ev.Name {
		case parse.HookSessionStart:
			starts = append(starts, i)
			continue
		case parse.HookSessionEnd:
			ends = append(ends, i)
			continue
		}
		gen := baseGeneration(entries, i)
		n, ok := byGen[gen]
		if !ok {
			// The turn under way when it came: the last begun by then.
			n = -1
			for m, t := range turns {
				if !t.start.After(entries[i].At) {
					n = m
				}
			}
			if n < 0 {
				if len(turns) == 0 {
					turns = append(turns, hookTurnOf{start: entries[i].At, stop: -1})
					after = append(after, nil)
				}
				n = 0
			}
			if gen != "" && !sessionLevel(ev.Name) {
				byGen[gen] = n
			}
		}
		turns[n].last = later(turns[n].last, entries[i].At)
		switch {
		case ev.Name == parse.HookStop && turns[n].stop < 0:
			turns[n].stop = i
		case ev.Name == parse.HookStop:
			after[n] = append(after[n], i)
		default:
			turns[n].members = append(turns[n].members, i)
		}
	}
	for n := range turns {
		if s := turns[n].stop; s >= 0 {
			turns[n].members = append(turns[n].members, s)
		}
		turns[n].members = append(turns[n].members, after[n]...)
	}
	return turns, starts, ends
}
