package spanmap

import (
	"time"

	"github.com/cursor-otel/cursor-otel/parse"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
)

func (a *ACP) answer(req *acpRequest, m *parse.ACPAnswer, at time.Time) {
	switch req.method {
	case "initialize":
		r := m.Result.Initialize
		if r.AgentInfo != nil {
			a.agent, a.agentVersion = r.AgentInfo.Name, r.AgentInfo.Version
		}
		if v := r.Version(); v != "" {
			a.protocol = v
		}
		return
	case "session/close", "session/delete":
		// A session closed holds nothing more: forgotten, unless a turn of
		// it is still open (its answer still closes it).
		if s := a.sessions[req.session]; s != nil && m.Error == nil && len(s.turns) == 0 {
			delete(a.sessions, req.session)
		}
	case "session/new", "session/load", "session/resume", "session/fork", "session/set_config_option", "session/set_mode":
		if m.Error == nil {
			a.sessionAnswer(req, m)
		}
		// and its span, when it was made during a turn, ends below
	case "session/prompt":
		if req.turn == nil || req.turn.ended {
			return // closed already
		}
		t := req.turn
		if m.Error != nil {
			t.root.set(a.rpcError(m.Error)...)
			a.endTurn(t, at, "", codes.Error, a.text(m.Error.Message, 1024))
			return
		}
		r := m.Result.Prompt
		if r.StopReason == "" && a.protocol == "2" {
			// Version 2 answers a prompt at once: state_update's idle
			// ends the turn.
			t.untilIdle = true
			a.usage(t, r.Usage)
			return
		}
		a.usage(t, r.Usage)
		a.endTurn(t, at, r.StopReason, codes.Unset, "")
		return
	}
	if req.sub != nil {
		status := "completed"
		if m.Error != nil {
			req.sub.root.set(a.rpcError(m.Error)...)
			status = "failed"
		} else {
			r := m.Result.Task
			if r.AgentID != "" {
				req.sub.root.set(a.str(SubagentID, r.AgentID)) // a run's id: no gen_ai.agent.id, which is stable
			}
			if r.DurationMs != nil {
				req.sub.root.set(DurationMs.Int64(*r.DurationMs))
			}
		}
		a.endSub(req.sub, at, status, "")
		return
	}
	if req.span == nil {
		return
	}
	if m.Error != nil {
		req.span.set(a.rpcError(m.Error)...)
		req.span.setStatus(codes.Error, a.text(m.Error.Message, 1024))
	} else if req.method == "session/request_permission" {
		r := m.Result.Permission
		attrs := []attribute.KeyValue{ACPPermOutcome.String(r.Outcome.Outcome)}
		var kind string
		if r.Outcome.OptionID != "" {
			attrs = append(attrs, ACPPermOption.String(r.Outcome.OptionID))
			for _, o := range m.Request.Ref.Options {
				if o.OptionID == r.Outcome.OptionID && o.Kind != "" {
					kind = o.Kind
					attrs = append(attrs, ACPPermKind.String(o.Kind))
				}
			}
		}
		req.span.set(append(attrs, a.waitAnswer(permissionOutcome(r.Outcome.Outcome, kind))...)...)
	} else if isWait(req.method) {
		req.span.set(a.waitAnswer(m.Result.Outcome)...)
		if len(m.Result.Chosen) > 0 {
			ids := make([]string, len(m.Result.Chosen))
			for i, id := range m.Result.Chosen {
				ids[i] = a.text(id, maxMessage)
			}
			req.span.set(InteractionOptionIDs.StringSlice(ids))
		}
		if a.opts.CaptureContent && len(m.Raw) > 0 {
			req.span.set(ACPResponseText.String(a.jsonText(string(m.Raw), a.opts.MaxContent)))
		}
	}
	a.end(req.span, at)
}

// usage records a prompt answer's token usage on its turn: as the
// conventions define it, input includes the cached tokens
// (parse.ACPUsage.Input). The totals under cursor.usage.*, as every
// source gives them, are set as the turn ends, its subagents' included.
func (a *ACP) usage(t *acpTurn, u *parse.ACPUsage) {
	if u == nil {
		return
	}
	t.totals.Usage = u.Usage()
	t.usageKnown = true
	t.root.set(usageAttributes(t.totals.Usage)...)
}

// sessionAnswer takes what an answer says of a session: its id (new,
// fork), model and mode.
func (a *ACP) sessionAnswer(req *acpRequest, m *parse.ACPAnswer) {
	r := m.Result.Session
	id := r.SessionID
	if id == "" {
		id = req.session
	}
	s := a.session(id)
	if s == nil {
		return
	}
	if model := parse.ModelOf(r.Models, r.ConfigOptions); model != "" {
		s.model = model
	}
	if req.cwd != "" {
		s.cwd = req.cwd
	}
	if mode := parse.ModeOf(r.Modes, r.ConfigOptions); mode != "" {
		a.setMode(s, mode)
	}
	if from := a.sessions[req.session]; req.method == "session/fork" && from != nil && from != s && !s.lastRoot.IsValid() {
		s.lastRoot = from.lastRoot // a fork continues its original's chain
	}
	if req.method == "session/new" {
		s.cost, s.costKnown = 0, true // a new session has cost nothing yet
	}
}

// ACPEndAttrs say how the agent ended, for the turns its exit closes.
func ACPEndAttrs(code int, stderrTail string, untraced int64) []attribute.KeyValue {
	attrs := []attribute.KeyValue{ExitCode.Int(code)}
	if stderrTail != "" {
		attrs = append(attrs, StderrTail.String(stderrTail))
	}
	if untraced > 0 {
		attrs = append(attrs, ACPUntracedBytes.Int64(untraced))
	}
	return attrs
}
