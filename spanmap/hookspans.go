package spanmap

import (
	"cmp"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// place gives p the IDs of the turn's span named by parts, under parent
// (invalid: none, the turn's root), and keeps it with the turn's spans.
func (t *hookTurn) place(p *draft, parent trace.SpanID, parts ...string) *draft {
	id := turnTraceID(t.st.ConversationID, t.key)
	sc := func(s trace.SpanID) trace.SpanContext {
		return trace.NewSpanContext(trace.SpanContextConfig{TraceID: id, SpanID: s, TraceFlags: trace.FlagsSampled})
	}
	p.sc = sc(hookSpanID(t.st.ConversationID, parts...))
	if parent.IsValid() {
		p.parent = sc(parent)
	}
	t.spans = append(t.spans, p)
	return p
}

// parentOf is the span a call of generation gen goes under: the
// generation's, else the turn's root.
func (t *hookTurn) parentOf(gen string) trace.SpanID {
	if gen == "" {
		return hookSpanID(t.st.ConversationID, "turn", t.key)
	}
	return hookSpanID(t.st.ConversationID, "generation", gen)
}

// toolDone drafts the span of a tool call whose end ev says, at now.
func (t *hookTurn) toolDone(ev parse.HookEvent, now time.Time) {
	t.st.markSpanned(endedKey(ev.ToolKey)) // its span is made: an end told again makes none
	call, gen, start := *ev.Tool, ev.GenerationID, now
	var cover time.Time
	if tool := t.tools[ev.ToolKey]; tool != nil {
		call, start, gen, cover = tool.call.Merge(call), tool.start, cmp.Or(gen, tool.gen), tool.cover
		delete(t.tools, ev.ToolKey)
	}
	if ev.Duration > 0 {
		start = now.Add(-ev.Duration) // the event's own measure wins over two processes' clocks
	}
	start = earlier(start, now) // a start told after its end (parallel hooks) is no later
	if !cover.IsZero() {
		start = earlier(start, cover) // and covers the subagent it ran
	}
	t.cover(gen, start)
	if g := t.gens[ev.GenerationID]; g != nil {
		g.toolCalls++
	}
	outcome, errType := OutcomeSuccess, ""
	switch {
	case ev.Rejected:
		outcome = OutcomeRejected
	case ev.Timeout:
		outcome, errType = OutcomeError, ErrTimeout
	case ev.Failed, call.Facts.ExitCode != nil && *call.Facts.ExitCode != 0:
		outcome = OutcomeError
	}
	t.tool(gen, call, ev.ToolKey, start, now, outcome, errType, ev.Failure, ev.Result)
}

// tool drafts a tool call's span; errType is error.type for an outcome
// of error ("error" when empty).
func (t *hookTurn) tool(gen string, call parse.ToolCall, key string, start, end time.Time, outcome, errType, failure, result string) {
	p := t.toolDraft(call, outcome)
	p.attrs = append(p.attrs, t.identity("cursor-agent", t.st.ConversationID)...)
	if t.opts.CaptureContent && result != "" {
		p.attrs = append(p.attrs, ToolResult.String(t.jsonText(result, t.opts.MaxContent)))
	}
	if outcome == OutcomeIncomplete {
		how := closedOpen
		if t.cancelled {
			how = closedCancelled
		}
		p.unfinish(how, "no completion before the session ended")
	} else {
		t.toolEnd(p, call, outcome, cmp.Or(errType, ErrTool), failure)
	}
	p.start, p.end = start, end
	t.place(p, t.parentOf(gen), "tool", key)
}

// generation drafts a generation's chat span, ended at end or later.
func (t *hookTurn) generation(id string, g *hookGeneration, end time.Time) {
	model := cmp.Or(g.model, t.st.Model)
	p := chatDraft(t.text(model, maxMessage))
	p.attrs = append(p.attrs, t.str(GenerationID, id))
	p.attrs = append(p.attrs, t.identity("cursor-agent", t.st.ConversationID)...)
	if g.usage != nil {
		// The generation's own usage, by the conventions; the turn keeps
		// the sum under cursor.usage.*, so that it counts once.
		p.attrs = append(p.attrs, usageAttributes(*g.usage)...)
		if t.totals == nil {
			t.totals = &Totals{}
		}
		p.attrs = append(p.attrs, t.totals.reportCost(t.totals.Estimate(t.prices, model, *g.usage))...)
	}
	var thinking time.Duration
	var reasoning []string
	for _, th := range g.thoughts {
		thinking += th.duration
		ea := []attribute.KeyValue{ThinkingMs.Int64(th.duration.Milliseconds())}
		if th.text != "" {
			ea = append(ea, ThinkingText.String(t.text(th.text, t.opts.MaxContent)))
			reasoning = append(reasoning, t.text(th.text, t.opts.MaxContent))
		}
		p.addEvent(EventThinking, th.at, ea...)
	}
	if thinking > 0 {
		p.attrs = append(p.attrs, ThinkingMs.Int64(thinking.Milliseconds()))
	}
	finish := "stop"
	switch {
	case !g.stopped:
		finish = "incomplete"
	case g.status == "error":
		finish = "error"
		p.attrs = append(p.attrs, ErrorType.String(ErrAgent))
		p.code, p.message = codes.Error, "the generation ended in error"
	case g.status == "aborted", g.status == "incomplete":
		finish = g.status
	}
	if t.opts.CaptureContent && g.prompt != "" {
		p.attrs = append(p.attrs, InputMessages.String(inputMessage(t.text(g.prompt, t.opts.MaxContent))))
	}
	t.chatEnd(&p, g.toolCalls, finish, reasoning, t.text(g.text, t.opts.MaxContent), nil)
	p.start, p.end = g.start, later(end, g.last)
	t.place(&p, hookSpanID(t.st.ConversationID, "turn", t.key), "generation", id)
}

// subagentDone drafts the span of a subagent whose stop ev says, at now.
func (t *hookTurn) subagentDone(ev parse.HookEvent, now time.Time) {
	s := t.subagents[ev.SubagentID]
	if s == nil {
		s = &hookSubagent{start: now, gen: ev.GenerationID, typ: ev.SubagentType, task: ev.SubagentTask}
	}
	if ev.Duration > 0 {
		s.start = earlier(s.start, now.Add(-ev.Duration))
	}
	s.typ, s.task = cmp.Or(s.typ, ev.SubagentType), cmp.Or(s.task, ev.SubagentTask)
	s.facts = s.facts.Merge(ev.Subagent)
	t.cover(s.gen, s.start)
	if tool := t.tools[s.tool]; tool != nil {
		tool.cover = earlier(tool.cover, s.start)
	}
	delete(t.subagents, ev.SubagentID)
	p := t.subagent(ev.SubagentID, s, now)
	t.subagentEnd(p, ev.Status)
}

// subagent drafts a subagent's span, ended at end.
func (t *hookTurn) subagent(id string, s *hookSubagent, end time.Time) *draft {
	t.st.markSpanned(subagentKey(id)) // a stop told again makes no second span
	f := s.facts
	p := t.subagentDraft(s.typ, said{ConversationID, t.st.ConversationID}, said{SubagentID, id}, // a run's id: no gen_ai.agent.id, which is stable
		said{SubagentType, s.typ}, said{SubagentDescription, s.task}, said{SubagentModel, f.Model}, said{RequestModel, f.Model},
		said{SubagentParent, f.ParentConversationID})
	p.start, p.end = s.start, end
	if f.ParallelWorker != nil {
		p.attrs = append(p.attrs, SubagentParallel.Bool(*f.ParallelWorker))
	}
	p.attrs = appendCounts(p.attrs, count{SubagentMessages, f.MessageCount}, count{SubagentToolCalls, f.ToolCallCount}, count{SubagentLoops, f.LoopCount})
	parent := t.parentOf(s.gen)
	if s.tool != "" {
		parent = hookSpanID(t.st.ConversationID, "tool", s.tool)
	}
	return t.place(p, parent, "subagent", id)
}

// root drafts the turn's root, ended at end or later, with what the
// conversation says of itself.
func (t *hookTurn) root(end time.Time, how string, ending *parse.HookEntry) *draft {
	st := t.st
	p := &draft{name: RootName, kind: trace.SpanKindClient, start: t.start, end: later(end, t.last),
		attrs: append(t.rootAttributes("cursor-agent", said{ConversationID, st.ConversationID}, said{RequestModel, st.Model},
			said{Cwd, st.Workspace}, said{CursorVersion, st.CursorVersion}, said{ComposerMode, st.Mode}), Source.String("hooks"))}
	p.attrs = append(p.attrs, TurnNumber.Int(t.number), TurnEnd.String(how))
	p.attrs = append(p.attrs, t.totals.attributes()...)
	if t.link.IsValid() {
		p.links = append(p.links, trace.Link{SpanContext: t.link})
	}
	for _, c := range t.compactions {
		p.addEvent(EventCompaction, c.At, t.compactionAttributes(c.C)...)
	}
	reason := ""
	if ending != nil {
		reason = ending.Event.Status
		p.attrs = t.appendFacts(p.attrs, said{SessionEndReason, reason})
		if ending.Event.Duration > 0 {
			p.attrs = append(p.attrs, SessionDuration.Int64(ending.Event.Duration.Milliseconds()))
		}
		p.attrs = append(p.attrs, SessionTurns.Int(st.Turns))
		st.Ended = st.Turns + 1 // said: a copy of the end says nothing more
	}
	switch {
	case t.failed || reason == "error":
		p.attrs = append(p.attrs, ErrorType.String(ErrAgent))
		p.code, p.message = codes.Error, "the agent ended in error"
	case reason == "aborted":
		p.attrs = append(p.attrs, ErrorType.String(ErrAborted))
		p.code, p.message = codes.Error, "the session was aborted"
	case how == TurnEndNextPrompt, how == TurnEndIdle:
		why := "the turn did not complete: the next prompt came before its stop"
		if how == TurnEndIdle {
			why = "the turn did not complete: no stop, and nothing more from the conversation"
		}
		p.unfinish(closedOpen, why)
	}
	return t.place(p, trace.SpanID{}, "turn", t.key)
}

// compactionAttributes say what a preCompact announced.
func (h *Hooks) compactionAttributes(c parse.Compaction) []attribute.KeyValue {
	attrs := appendCounts(h.facts(said{CompactionTrigger, c.Trigger}, said{CompactionModel, c.Model}), count{CompactionMessages, c.MessageCount},
		count{CompactionCompacted, c.MessagesToCompact}, count{CompactionTokens, c.ContextTokens}, count{CompactionWindow, c.ContextWindow})
	if c.First != nil {
		attrs = append(attrs, CompactionFirst.Bool(*c.First))
	}
	if c.ContextPercent != nil {
		attrs = append(attrs, CompactionPercent.Float64(*c.ContextPercent))
	}
	return attrs
}

// count is a figure an event may give (nil: it did not).
type count struct {
	key attribute.Key
	v   *int64
}

// appendCounts appends the counts given.
func appendCounts(attrs []attribute.KeyValue, cs ...count) []attribute.KeyValue {
	for _, c := range cs {
		if c.v != nil {
			attrs = append(attrs, c.key.Int64(*c.v))
		}
	}
	return attrs
}
