package spanmap

import (
	"cmp"
	"slices"
	"time"

	"github.com/cursor-otel/cursor-otel/parse"
)

// streamWait is a wait on the person the stream told, not yet answered,
// and what it is under while they are open.
type streamWait struct {
	p    *draft
	tool *toolCall  // the tool call it holds up, if the question names one
	mc   *modelCall // the model call under way when it was asked, if any
}

// interaction records the agent asking its client (often a person) for
// an approval, and the answer: a wait on the person (waitDraft), as ACP
// tells one, from the question to the answer. It is under the tool call
// it holds up (the running one whose file or command the question names:
// the stream's interaction_query names no call id), else the model call
// under way, else the session; under the closest of them still open when
// it ends, so that its parent covers it.
func (s *session) interaction(e *parse.Interaction, t time.Time) {
	if mc := s.current; mc != nil && !mc.done {
		mc.see(t) // the wait is inside the model call
	}
	if !e.Response {
		if old := s.waits[e.ID]; old != nil {
			delete(s.waits, e.ID)
			s.endWait(old, t, closedOpen, "its id was asked again before its answer")
		}
		if len(s.waits) >= maxEventsPerKind {
			return // its answer, if it comes, is a wait of no length
		}
		s.waits[e.ID] = s.newWait(e, t)
		return
	}
	w := s.waits[e.ID]
	if w != nil {
		delete(s.waits, e.ID)
	} else {
		w = s.newWait(e, t) // an answer to a question not seen
	}
	w.p.end = later(t, w.p.start)
	s.waited += w.p.end.Sub(w.p.start)
	w.p.attrs = append(w.p.attrs, s.rec.waitAnswer(e.Outcome)...)
	s.emitWait(w)
}

// newWait opens the wait a question (or an answer whose question was not
// seen) starts at t.
func (s *session) newWait(e *parse.Interaction, t time.Time) *streamWait {
	p := waitDraft(OpRequestPermission)
	p.attrs = append(p.attrs, InteractionKind.String(s.rec.text(e.Kind, maxMessage)), s.rec.str(InteractionID, e.ID))
	p.sc, p.in, p.start, p.end = s.rec.child(s.span.sc), &s.span, t, t
	w := &streamWait{p: p}
	if mc := s.current; mc != nil && !mc.done {
		w.mc, w.tool = mc, s.heldUp(e)
	}
	return w
}

// heldUp is the running tool call of the model call under way that a
// question names by its file or its command (the latest started, if
// several do), else nil.
func (s *session) heldUp(e *parse.Interaction) *toolCall {
	if e.Path == "" && e.Command == "" {
		return nil
	}
	var found *toolCall
	for _, tc := range s.tools {
		f := tc.call.Facts
		if tc.parent != s.current || (e.Path == "" || f.Path != e.Path) && (e.Command == "" || f.Command != e.Command) {
			continue
		}
		if found == nil || cmp.Or(tc.start.Compare(found.start), cmp.Compare(tc.call.ID, found.call.ID)) > 0 {
			found = tc
		}
	}
	return found
}

// emitWait makes a wait's span, under the closest of what it is under
// that is still open and began before it.
func (s *session) emitWait(w *streamWait) {
	p := w.p
	switch {
	case w.tool != nil && s.tools[w.tool.call.ID] == w.tool && !w.tool.start.After(p.start):
		p.parent = w.tool.sc
		w.tool.cover(p.start, p.end)
	case w.mc != nil && !w.mc.done && !w.mc.p.start.After(p.start):
		p.parent = w.mc.p.sc
		w.mc.see(p.end)
	default:
		p.parent = s.span.sc
	}
	s.rec.emit(p)
}

// endWaits ends the waits never answered when the session ends, in the
// order they were asked, by the rule for work left open (unfinished).
func (s *session) endWaits(end time.Time, how closing, interrupted bool) {
	why := "no answer before the stream ended"
	if interrupted {
		why = "interrupted"
	}
	open := make([]*streamWait, 0, len(s.waits))
	for id, w := range s.waits {
		open = append(open, w)
		delete(s.waits, id)
	}
	slices.SortFunc(open, func(a, b *streamWait) int {
		return cmp.Or(a.p.start.Compare(b.p.start), cmp.Compare(Value(a.p.attrs, InteractionID).AsString(), Value(b.p.attrs, InteractionID).AsString()))
	})
	for _, w := range open {
		s.endWait(w, end, how, why)
	}
}

// endWait ends a wait never answered, at end.
func (s *session) endWait(w *streamWait, end time.Time, how closing, why string) {
	w.p.unfinish(how, why)
	w.p.end = later(end, w.p.start)
	s.emitWait(w)
}
