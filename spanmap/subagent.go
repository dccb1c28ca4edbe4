package spanmap

import (
	"cmp"
	"strings"
	"time"

	"github.com/cursor-otel/cursor-otel/parse"
)

// subagent records a subagent's own steps, when a task's result carries
// them, under the task: an invoke_agent span covering the task, holding a
// model call per turn (its thinking and text, then the tool calls it
// made) and those tool calls. The steps carry no times: a tool call that
// says its own start and end, within the task's, is placed there; anything
// else is put at the task's end, with no duration, and marked
// cursor.time_unknown.
func (s *session) subagent(task *draft, sub *parse.Subagent) {
	rec := s.rec
	agent := rec.subagentDraft(sub.Type, said{SubagentID, sub.ID}) // a run's id: no gen_ai.agent.id, which is stable
	agent.sc, agent.parent, agent.in, agent.start, agent.end = rec.child(task.sc), task.sc, task.in, task.start, task.end
	agent.attrs = append(agent.attrs, SubagentSteps.Int(len(sub.Steps)))
	model := cmp.Or(rec.text(sub.Model, maxMessage), s.model)
	if model != "" {
		agent.attrs = append(agent.attrs, RequestModel.String(model))
	}
	if rec.opts.CaptureContent && sub.Prompt != "" {
		agent.attrs = append(agent.attrs, InputMessages.String(inputMessage(rec.text(sub.Prompt, rec.opts.MaxContent))))
	}

	// A step's own times are the agent's clock, as the task's are.
	place := func(t time.Time) time.Time { return s.clock.agentTime(t, s.readAt) }
	var chat *subagentTurn
	flush := func() {
		if chat != nil {
			chat.emit(rec)
			chat = nil
		}
	}
	for _, st := range sub.Steps {
		if st.Tool == nil {
			if chat != nil && chat.tools > 0 {
				flush() // text after tool calls: the next turn
			}
			if chat == nil {
				chat = newSubagentTurn(rec, agent, model)
			}
			if st.Think {
				chat.reasoning = append(chat.reasoning, st.Text)
			} else if st.Text != "" {
				chat.text = append(chat.text, st.Text)
			}
			continue
		}
		if chat == nil {
			chat = newSubagentTurn(rec, agent, model)
		}
		chat.tool(rec, st, place)
	}
	flush()
	rec.emit(agent)
}

// subagentTurn is one model call of a subagent.
type subagentTurn struct {
	p         draft
	task      *draft    // the agent's span, which covers the task
	at        time.Time // where what has no time of its own is put: the task's end
	tools     int
	timed     bool // a tool call of the turn said its own times
	reasoning []string
	text      []string
	calls     []toolPart
}

func newSubagentTurn(rec *Stream, agent *draft, model string) *subagentTurn {
	c := &subagentTurn{task: agent, at: agent.end, p: chatDraft(model)}
	c.p.sc, c.p.parent, c.p.in = rec.child(agent.sc), agent.sc, agent
	return c
}

// tool records one tool call of the turn.
func (c *subagentTurn) tool(rec *Stream, st parse.Step, place func(time.Time) time.Time) {
	call := *st.Tool
	name := cmp.Or(rec.text(call.Name, maxMessage), "unknown")
	c.tools++
	c.calls = append(c.calls, toolPart{id: call.ID, name: name, args: call.Args})
	start, end := place(call.StartedAt), place(call.CompletedAt)
	// Times outside the task's are not the step's: the task was emitted
	// already, and its spans must stay inside it.
	timed := !start.IsZero() && !end.IsZero() && !end.Before(start) &&
		!start.Before(c.task.start) && !end.After(c.task.end)
	if !timed {
		start, end = c.at, c.at
	}
	c.timed = c.timed || timed
	outcome := parse.Success
	if st.Result != nil {
		outcome = st.Result.Outcome
	}
	p := rec.toolDraft(call, string(outcome))
	p.sc, p.parent, p.in, p.start, p.end = rec.child(c.p.sc), c.p.sc, c.task, start, end
	if !timed {
		p.attrs = append(p.attrs, TimeUnknown.Bool(true))
	}
	if r := st.Result; r != nil {
		rec.toolEnd(p, call, string(r.Outcome), toolErrorType(r.Kind), r.Message)
	}
	rec.emit(p)
	c.p.grow(start, end)
}

func (c *subagentTurn) emit(rec *Stream) {
	if c.p.start.IsZero() {
		c.p.start, c.p.end = c.at, c.at
	}
	if !c.timed {
		c.p.attrs = append(c.p.attrs, TimeUnknown.Bool(true))
	}
	finish := "stop"
	if c.tools > 0 {
		finish = "tool_call"
	}
	var text string
	var reasoning []string
	if rec.opts.CaptureContent {
		if len(c.reasoning) > 0 {
			reasoning = []string{rec.text(strings.Join(c.reasoning, ""), rec.opts.MaxContent)}
		}
		text = rec.text(strings.Join(c.text, ""), rec.opts.MaxContent)
	}
	rec.chatEnd(&c.p, c.tools, finish, reasoning, text, c.calls)
	rec.emit(&c.p)
}
