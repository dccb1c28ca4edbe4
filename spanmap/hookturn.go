package spanmap

import (
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// A conversation traced through hooks is one trace per turn: a prompt and
// everything the agent did for it, whole when the turn ends. A
// conversation lasts hours and may never say that it ended; a trace that
// waited for its end would have no root until then, and a tail sampler
// would cut it.

// The ways a turn ends, as cursor.turn.end says.
const (
	TurnEndStop       = "stop"        // its stop came
	TurnEndNextPrompt = "next_prompt" // the conversation's next prompt came first
	TurnEndSession    = "session_end" // the conversation's sessionEnd came first
	TurnEndIdle       = "idle"        // nothing came for too long
)

// OpenTurn is the trace of the turn under way in st; false when none is.
// Its spans are held until its root is made.
func (h *Hooks) OpenTurn(st *HookState) (trace.TraceID, bool) {
	if st.Turn == nil {
		return trace.TraceID{}, false
	}
	return turnTraceID(st.ConversationID, st.Turn.Key), true
}

// CloseIdle closes the turn under way in st, which nothing has followed
// for too long, at its last event: whole, saying it did not complete.
func (h *Hooks) CloseIdle(st *HookState) []SpanRecord {
	if st.Turn == nil {
		return nil
	}
	return h.closeTurn(st, st.Turn.Last, TurnEndIdle, "", 0)
}

// enter puts an event of generation gen in a turn: the one under way, or
// a new one. A prompt for another generation closes the turn under way
// (its stop never came) and opens its own; any other event of a
// generation not yet seen joins the turn under way, or opens one.
func (h *Hooks) enter(st *HookState, event, gen string, now time.Time) []SpanRecord {
	var done []SpanRecord
	if t := st.Turn; t != nil {
		if event != parse.HookPrompt || gen == "" || gen == t.Key || st.Generations[gen] != nil {
			return nil
		}
		done = h.closeTurn(st, t.Last, TurnEndNextPrompt, "", 0)
	}
	st.Turns++
	key := gen
	if key == "" {
		key = "#" + strconv.Itoa(st.Turns)
	}
	st.Turn = &HookTurn{Key: key, Number: st.Turns, Start: now, Last: now, Link: h.lastRoot(st), Compactions: st.Compactions}
	st.Compactions = nil
	return done
}

// lastRoot is the root of the conversation's last turn, for a new turn
// to link to: whoever traced it (a wrapped run, ACP, hooks in another
// state) when Options.Turns knows it, else the last this state closed.
func (h *Hooks) lastRoot(st *HookState) *HookRoot {
	if turns := h.opts.Turns; turns != nil && st.ConversationID != "" {
		if last, ok := turns.Last(st.ConversationID); ok {
			return &HookRoot{TraceID: last.TraceID().String(), SpanID: last.SpanID().String()}
		}
	}
	return st.Root
}

// closedTurn is the turn of a generation whose chat span is made.
func closedTurn(st *HookState, gen string) (string, bool) {
	if gen == "" {
		return "", false
	}
	for _, c := range st.Closed {
		if c.Generation == gen {
			return c.Turn, true
		}
	}
	return "", false
}

// closeGeneration remembers that gen's chat span is made.
func (h *Hooks) closeGeneration(st *HookState, gen, turn string) {
	delete(st.Generations, gen)
	st.Closed = append(st.Closed, HookClosed{Generation: gen, Turn: turn})
	st.Closed = st.Closed[max(0, len(st.Closed)-maxClosed):]
}

// turnOf is the key of the turn generation gen is in: its own, the one
// it closed with, else the turn under way.
func turnOf(st *HookState, gen string) string {
	if g := st.Generations[gen]; g != nil {
		return g.Turn
	}
	if key, ok := closedTurn(st, gen); ok {
		return key
	}
	if st.Turn != nil {
		return st.Turn.Key
	}
	return gen
}

// closeTurn closes the turn under way at end, with everything still
// open in it, and makes its root. how says what closed it; reason and
// lasted are what sessionEnd said, when it did.
func (h *Hooks) closeTurn(st *HookState, end time.Time, how, reason string, lasted time.Duration) []SpanRecord {
	t := st.Turn
	var done []SpanRecord
	if held := st.Held; held != nil {
		st.Held = nil
		done = append(done, h.toolDone(st, held.Event, held.At))
	}
	for key, tool := range st.Tools {
		done = append(done, h.toolRecord(st, tool.Generation, tool.Call, key, tool.Start, later(end, tool.Start), OutcomeIncomplete, "", "", ""))
		h.told(st, endedKey(key))
	}
	for id, s := range st.Subagents {
		done = append(done, h.subagentRecord(st, id, s, later(end, s.Start)))
	}
	for id, g := range st.Generations {
		done = append(done, h.generationDone(st, id, g, end, "incomplete"))
		h.closeGeneration(st, id, g.Turn)
	}
	st.Tools, st.Subagents, st.Generations = nil, nil, nil

	r := h.root(st, t.Key, t.Start, later(end, t.Last))
	r.Attrs = append(r.Attrs, TurnNumber.Int(t.Number), TurnEnd.String(how))
	r.Attrs = append(r.Attrs, t.Totals.attributes()...)
	if l, ok := t.Link.link(); ok {
		r.Links = append(r.Links, l)
	}
	for _, c := range t.Compactions {
		r.Events = append(r.Events, RecordEvent{Name: EventCompaction, At: c.At, Attrs: h.compactionAttributes(c.C)})
	}
	if how == TurnEndSession {
		r.Attrs = append(r.Attrs, h.sessionEnd(st, reason, lasted)...)
	}
	switch {
	case t.Failed || how == TurnEndSession && reason == "error":
		r.Attrs = append(r.Attrs, ErrorType.String(ErrAgent))
		r.Status, r.Message = codes.Error, "the agent ended in error"
	case how == TurnEndSession && reason == "aborted":
		r.Attrs = append(r.Attrs, ErrorType.String(ErrAborted))
		r.Status, r.Message = codes.Error, "the session was aborted"
	case how == TurnEndNextPrompt, how == TurnEndIdle:
		why := "the turn did not complete: the next prompt came before its stop"
		if how == TurnEndIdle {
			why = "the turn did not complete: no stop, and nothing more from the conversation"
		}
		incomplete, code, msg := unfinished(closedOpen, why)
		r.Attrs = append(r.Attrs, incomplete...)
		r.Status, r.Message = code, msg
	}
	st.Root = &HookRoot{TraceID: r.TraceID.String(), SpanID: r.SpanID.String()}
	if turns := h.opts.Turns; turns != nil && st.ConversationID != "" {
		turns.SetLast(st.ConversationID, st.Root.SpanContext())
	}
	st.Turn = nil
	return append(done, r)
}

// root is the root span of a turn keyed key, with what the conversation
// says of itself.
func (h *Hooks) root(st *HookState, key string, start, end time.Time) SpanRecord {
	attrs := append(h.rootAttributes("cursor-agent", said{ConversationID, st.ConversationID}, said{RequestModel, st.Model},
		said{Cwd, st.Workspace}, said{CursorVersion, st.CursorVersion}, said{ComposerMode, st.Mode}), Source.String("hooks"))
	return SpanRecord{TraceID: turnTraceID(st.ConversationID, key), SpanID: turnRootID(st.ConversationID, key),
		Name: SessionName, Kind: trace.SpanKindClient, Start: start, End: end, Attrs: attrs}
}

// sessionEnd is what a sessionEnd says of the conversation.
func (h *Hooks) sessionEnd(st *HookState, reason string, lasted time.Duration) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if reason != "" {
		attrs = append(attrs, SessionEndReason.String(h.text(reason, maxMessage)))
	}
	if lasted > 0 {
		attrs = append(attrs, SessionDuration.Int64(lasted.Milliseconds()))
	}
	return append(attrs, SessionTurns.Int(st.Turns))
}

// End is a conversation's sessionEnd at end: it closes the turn under
// way with its reason. With none under way, the end is a root of its
// own, in a trace of its own linked to the last turn, so that the reason
// and the duration are found by the conversation's id.
func (h *Hooks) End(st *HookState, end time.Time, reason string, lasted time.Duration) []SpanRecord {
	if t := st.Turn; t != nil {
		if lasted > 0 && t.Number == 1 {
			// The conversation's only turn covers what it says it lasted
			// (a headless run fires no prompt hook: its turn starts late).
			t.Start = earlier(t.Start, end.Add(-lasted))
		}
		return h.closeTurn(st, end, TurnEndSession, reason, lasted)
	}
	if st.Ended == st.Turns+1 {
		return nil // said already, and no turn since
	}
	st.Ended = st.Turns + 1
	r := h.root(st, "end-"+strconv.Itoa(st.Turns), end, end)
	r.Attrs = append(r.Attrs, h.sessionEnd(st, reason, lasted)...)
	if l, ok := st.Root.link(); ok {
		r.Links = append(r.Links, l)
	}
	for _, c := range st.Compactions {
		r.Events = append(r.Events, RecordEvent{Name: EventCompaction, At: c.At, Attrs: h.compactionAttributes(c.C)})
	}
	st.Compactions = nil
	switch reason {
	case "error":
		r.Attrs = append(r.Attrs, ErrorType.String(ErrAgent))
		r.Status, r.Message = codes.Error, "the agent ended in error"
	case "aborted":
		r.Attrs = append(r.Attrs, ErrorType.String(ErrAborted))
		r.Status, r.Message = codes.Error, "the session was aborted"
	}
	return []SpanRecord{r}
}

// IsSessionEnd says a root's attributes are those of a conversation's end
// alone (End with no turn under way), not of a turn.
func IsSessionEnd(attrs []attribute.KeyValue) bool {
	return Value(attrs, SessionTurns).Type() != attribute.EMPTY && Value(attrs, TurnNumber).Type() == attribute.EMPTY
}

// turnTraceID is the trace of a conversation's turn: every hook process
// derives the same.
func turnTraceID(conversation, turn string) trace.TraceID {
	return hookTraceID(conversation + "\x00turn\x00" + turn)
}

// turnRootID is the root span of a conversation's turn.
func turnRootID(conversation, turn string) trace.SpanID {
	return hookSpanID(conversation, "turn", turn)
}
