package spanmap

import (
	"math"
	"strings"
	"time"

	"github.com/cursor-otel/cursor-otel/parse"
	"go.opentelemetry.io/otel/attribute"
)

func (a *ACP) notification(m *parse.ACPNotification, at time.Time) {
	if m.Method == "cursor/update_todos" && !m.FromEditor {
		// The same update as the request: an event of the turn.
		if t := a.turnFor(m.Ref); t != nil {
			a.todos(t, m.Ref.Todos, at)
		}
		return
	}
	if m.Method != "session/update" || m.FromEditor {
		if m.Method == "session/cancel" || !strings.HasPrefix(m.Method, "session/") {
			a.event(m, at)
		}
		return
	}
	p := m.Update
	if p == nil {
		return // its params did not decode
	}
	s := a.session(p.SessionID)
	if s == nil {
		return
	}
	u := p.Update
	switch u.SessionUpdate {
	case "config_option_update":
		if model := parse.ModelOf(nil, u.ConfigOptions); model != "" {
			s.model = model
			for _, t := range s.turns {
				t.root.set(RequestModel.String(model))
			}
		}
		if mode := parse.ModeOf(nil, u.ConfigOptions); mode != "" {
			a.setMode(s, mode)
		}
		return
	case "current_mode_update":
		if u.CurrentModeID != "" {
			a.setMode(s, u.CurrentModeID)
		}
		return
	case "session_info_update":
		// The title is content: only with content capture.
		if a.opts.CaptureContent && u.Title != "" {
			s.title = a.text(u.Title, maxMessage)
			for _, t := range s.turns {
				t.root.set(ACPSessionTitle.String(s.title))
			}
		}
		return
	}
	t := s.turn()
	if t == nil {
		if u.SessionUpdate == "usage_update" && u.Cost != nil {
			// A report outside a turn (after its answer, or in a loaded
			// session's replay) is the next turn's starting point.
			s.cost, s.currency, s.costKnown = u.Cost.Amount, u.Cost.Currency, true
		}
		return
	}
	if u.SessionUpdate != "agent_thought_chunk" {
		a.endThinking(t)
	}
	switch u.SessionUpdate {
	case "agent_thought_chunk":
		if t.thinking == nil {
			t.thinking = &thinkingPhase{start: at, text: boundedText{max: a.opts.MaxContent}}
		}
		t.thinking.last = at
		t.thinking.deltas++
		if a.opts.CaptureContent {
			t.thinking.text.add(u.ChunkText())
		}
	case "agent_message_chunk":
		if t.first.IsZero() {
			t.first = at
		}
		if a.opts.CaptureContent {
			t.output.add(u.ChunkText())
		}
	case "tool_call", "tool_call_update":
		tl := a.tool(t, u.ACPToolCall, at)
		if added, removed, ok := parse.ACPDiffLines(u.Content); ok && !tl.ended {
			// The content as it stands: a later update's replaces it.
			tl.span.set(ToolLinesAdded.Int64(added), ToolLinesRemove.Int64(removed))
		}
	case "plan":
		a.plan(t, u.Entries, at)
	case "subagent_update", "subagent_spawned":
		a.subagentUpdate(t, s, u, at)
	case "session_message", "session_message_chunk":
		// Messages between sessions: events naming the session that sent
		// them (the session whose update it is), their text never.
		t.root.addEvent(EventACPNotification, at, ACPMethod.String(u.SessionUpdate), a.str(MessageFromSession, s.id))
	case "state_update":
		state, stop, usage := u.StateOf()
		if state == "idle" {
			a.usage(t, usage)
		}
		a.state(t, state, stop, at)
	case "plan_update":
		if u.Plan != nil {
			a.plan(t, u.Plan.Entries, at)
		}
	case "compaction_update":
		var attrs []attribute.KeyValue
		if u.Status != "" {
			attrs = append(attrs, ACPCompactionStatus.String(u.Status))
		}
		t.root.addEvent(EventCompaction, at, attrs...)
	case "usage_update":
		if u.Cost != nil {
			a.addCost(s, t, u.Cost.Amount, u.Cost.Currency)
		}
		if u.Used != nil {
			t.used = u.Used
		}
		if u.Size != nil {
			t.size = u.Size
		}
	}
}

// addCost takes a report of the session's cumulative cost: the turn's
// cost is what it added since the session's previous report, in the
// currency given. Unknown (never invented) when the session's cost before
// this process is unknown, the currency changed, or the total fell.
func (a *ACP) addCost(s *acpSession, t *acpTurn, amount float64, currency string) {
	total := amount
	t.sessionCost, t.currency = &total, currency
	if s.costKnown && (s.currency == "" || currency == s.currency) && amount >= s.cost {
		added := roundCost(amount - s.cost)
		if t.cost != nil {
			added = roundCost(added + *t.cost)
		}
		t.cost = &added
	} else {
		t.cost = nil
	}
	s.cost, s.currency, s.costKnown = amount, currency, true
}

// roundCost drops float noise from a difference of two decimal amounts
// (0.25 - 0.10 is 0.15, not 0.15000000000000002).
func roundCost(x float64) float64 { return math.Round(x*1e12) / 1e12 }

// event records a message the trace has no span for, on the turn in
// progress (the only one, when exactly one session has a turn).
func (a *ACP) event(m *parse.ACPNotification, at time.Time) {
	if t := a.sessions[m.Ref.SessionID].turn(); t != nil {
		t.root.addEvent(EventACPNotification, at, ACPMethod.String(m.Method))
	}
}
