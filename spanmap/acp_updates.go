package spanmap

import (
	"cmp"
	"time"

	"github.com/cursor-otel/cursor-otel/parse"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// turnFor is the turn an agent's request is work for: its session's (a
// subagent's session's is the subagent), else (Cursor's extensions name
// no session) the turn with the tool call it names, else the only turn
// open.
func (a *ACP) turnFor(ref parse.ACPSessionRef) *acpTurn {
	if ref.SessionID != "" {
		return a.sessions[ref.SessionID].turn()
	}
	var open []*acpTurn
	for _, s := range a.sessions {
		if t := s.turn(); t != nil {
			if _, ok := t.tools[ref.ToolCallID]; ok && ref.ToolCallID != "" {
				return t
			}
			if t.parentTurn == nil { // a subagent runs within a turn: not another
				open = append(open, t)
			}
		}
	}
	if len(open) == 1 {
		return open[0]
	}
	return nil
}

// todos records a todo list as it stands (see listEvent).
func (a *ACP) todos(t *acpTurn, todos []parse.ACPTodo, at time.Time) {
	a.listEvent(t, at, EventACPTodos, ACPTodoStatuses, ACPTodoEntries, len(todos), func(i int) (string, string) {
		return todos[i].Status, todos[i].Content
	})
}

// listEvent records a list as it stands (todos, a plan): an event named
// name with each entry's status, and its text with content capture.
func (a *ACP) listEvent(t *acpTurn, at time.Time, name string, statusKey, textKey attribute.Key, n int, entry func(int) (status, text string)) {
	statuses, texts := make([]string, 0, n), make([]string, 0, n)
	for i := range n {
		status, text := entry(i)
		statuses = append(statuses, status)
		if a.opts.CaptureContent {
			texts = append(texts, a.text(text, a.opts.MaxContent))
		}
	}
	attrs := []attribute.KeyValue{statusKey.StringSlice(statuses)}
	if a.opts.CaptureContent {
		attrs = append(attrs, textKey.StringSlice(texts))
	}
	t.root.addEvent(name, at, attrs...)
}

// appendCommon appends what every span of a session says of whom it
// belongs to (the shaper's identity).
func (a *ACP) appendCommon(attrs []attribute.KeyValue, s *acpSession) []attribute.KeyValue {
	var conversation string
	if s != nil {
		conversation = s.id
	}
	return a.appendIdentity(attrs, a.agentName(), conversation)
}

// plan records a plan as it stands (see listEvent).
func (a *ACP) plan(t *acpTurn, plan []parse.ACPPlanEntry, at time.Time) {
	a.listEvent(t, at, EventACPPlan, ACPPlanStatuses, ACPPlanEntries, len(plan), func(i int) (string, string) {
		return plan[i].Status, plan[i].Content
	})
}

// state takes a state snapshot (protocol version 2's state_update, or a
// subagent's in its subagent_update): time in requires_action is a wait
// on the person, a span until the next state; idle ends the turn (or the
// subagent's run) with its stopReason.
func (a *ACP) state(t *acpTurn, state, stopReason string, at time.Time) {
	if state == "" {
		return // unchanged
	}
	if t.waiting != nil {
		a.end(t.waiting, at)
		t.waiting = nil
	}
	switch state {
	case "requires_action":
		p := a.wait("requires_action", nil)
		p.kind, p.attrs = trace.SpanKindInternal, a.appendCommon(p.attrs, t.sess)
		t.waiting = a.startDraft(t.root.sc, p, at)
	case "idle":
		switch {
		case t.parentTurn != nil:
			a.endSub(t, at, cmp.Or(stopReason, "idle"), "")
		case t.untilIdle || a.protocol == "2":
			a.endTurn(t, at, stopReason, codes.Unset, "")
		}
	}
}

// subagentUpdate takes a subagent_update on the parent session s: the
// first for a child session announces it (a subagent under the tool
// call that started it), a later one may rename it or give its state.
func (a *ACP) subagentUpdate(t *acpTurn, s *acpSession, u parse.ACPUpdate, at time.Time) {
	state, stop, usage := u.StateOf()
	name := cmp.Or(u.Title, u.Name)
	var sub *acpTurn
	child := a.sessions[u.ChildSessionID]
	if ct := child.turn(); ct != nil && ct.parentTurn != nil {
		sub = ct
	}
	if sub == nil {
		if state == "idle" {
			return // a subagent at rest, not running for this turn
		}
		sub = a.subagent(t, u.ToolCallID, name, at)
		if u.ChildSessionID != "" && u.ChildSessionID != s.id {
			a.bind(sub, a.session(u.ChildSessionID))
		}
	}
	if name != "" {
		sub.name = name
	}
	if state == "idle" {
		a.usage(sub, usage) // the subagent's own tokens, as it stops
	}
	a.state(sub, state, stop, at)
	switch u.Status { // Cursor's subagent_spawned, as far as it says
	case "completed", "failed", "cancelled", "error":
		a.endSub(sub, at, u.Status, "")
	}
}

// setMode records the session's mode, on its turns open and to come.
func (a *ACP) setMode(s *acpSession, mode string) {
	s.mode = mode
	for _, t := range s.turns {
		t.root.set(ComposerMode.String(mode))
	}
}

// agentName is the agent's name as initialize gave it, else cursor-agent.
func (a *ACP) agentName() string {
	if a.agent != "" {
		return a.agent
	}
	return "cursor-agent"
}

// who are the attributes naming the agent and the editor, on each root.
func (a *ACP) who() []attribute.KeyValue {
	return a.facts(said{AgentVersion, a.agentVersion}, said{ACPAgentName, a.agent}, said{ACPAgentVersion, a.agentVersion},
		said{ACPClientName, a.client}, said{ACPClientVersion, a.clientVersion}, said{ACPProtocolVersion, a.protocol})
}
