package spanmap

import (
	"cmp"
	"slices"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// A turn's spans are built once, from all its events, when it has
// closed (parse.HookTurns groups a journal's events into turns): a grace
// after what closes it, so that after-hooks of parallel calls still
// finishing are in it.

// HookGrace is how long after what closes a turn (its stop, the next
// prompt, the session's end) its late events still belong to it.
const HookGrace = 2 * time.Second

// HookIdle is how long a turn may be silent before it is closed,
// incomplete.
const HookIdle = 30 * time.Minute

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

// Build builds the journal's turns closed by now (a grace after its stop,
// the next prompt or the session's end, or idle for HookIdle), oldest
// first, each whole from its events, and keeps what crosses turns in st.
// Turns still open are left for a later Build, and so is every turn
// after one: a turn links to the one before it.
func (h *Hooks) Build(st *HookState, entries []parse.HookEntry, now time.Time) HookBuilt {
	out := HookBuilt{Dest: map[trace.TraceID]string{}}
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return entries[a].At.Compare(entries[b].At) })
	var live []int // entries of turns not built before
	for _, i := range order {
		if _, closed := st.closedTurn(entries[i].Event.TurnGeneration()); closed && !entries[i].Event.SessionLevel() {
			out.Used = append(out.Used, i)
			out.Late++
		} else {
			live = append(live, i)
		}
	}
	turns, starts, ends, merged := parse.HookTurns(entries, live)
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
		if !say(tt.Start) {
			return out
		}
		end := -1 // the sessionEnd that came while it was under way
		if len(ends) > 0 && (n+1 == len(turns) || entries[ends[0]].At.Before(turns[n+1].Start)) {
			end = ends[0]
		}
		how, ready := TurnEndIdle, tt.Last.Add(HookIdle)
		switch {
		case len(tt.Stops) > 0:
			how, ready = TurnEndStop, later(entries[tt.Stops[0]].At, tt.Last).Add(HookGrace)
		case end >= 0:
			how, ready = TurnEndSession, later(entries[end].At, tt.Last).Add(HookGrace)
		case n+1 < len(turns):
			how, ready = TurnEndNextPrompt, later(turns[n+1].Start, tt.Last).Add(HookGrace)
		}
		if now.Before(ready) {
			if how != TurnEndIdle {
				wait(ready)
			}
			return out
		}
		t, dest := h.newTurn(st), ""
		order, at := tt.Steps(entries)
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
		var ending *parse.HookEntry // the conversation's end, which the turn carries
		if end >= 0 {
			ending, ends = &entries[end], ends[1:]
		}
		switch how {
		case TurnEndStop:
			t.close(cmp.Or(t.stopped, entries[tt.Stops[0]].At), how, ending)
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
