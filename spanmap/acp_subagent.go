package spanmap

import (
	"cmp"
	"slices"
	"time"
)

// subagent is the subagent a tool call started (the protocol's subagent
// session, announced by subagent_update, or Cursor's cursor/task), opened
// as an invoke_agent span (INTERNAL) under that tool call the first time
// either names it. Its own session's updates and requests go into it.
func (a *ACP) subagent(t *acpTurn, toolCallID, name string, at time.Time) *acpTurn {
	top := t.topTurn()
	for _, sub := range top.subs {
		if toolCallID != "" && sub.toolCallID == toolCallID {
			if name != "" && sub.name == "" {
				sub.name = name
			}
			return sub
		}
	}
	// Under the tool call it names (Cursor's), else the one in progress
	// (the protocol's subagent_update names none).
	parent, tool := top.root.sc, (*acpTool)(nil)
	if tl := t.tools[toolCallID]; tl != nil && !tl.ended {
		tool = tl
	} else if tl := top.tools[toolCallID]; tl != nil && !tl.ended {
		tool = tl
	} else if tl := t.toolFor(""); tl != nil {
		tool = tl
	}
	if tool != nil {
		parent = tool.span.sc
	}
	// Named again as it ends: a later update may name it.
	span := a.startDraft(parent, a.subagentDraft(name, said{ConversationID, top.sess.id}, said{ToolCallID, toolCallID}), at)
	sub := &acpTurn{sess: top.sess, root: span, tools: map[string]*acpTool{}, start: at, untraced: a.untraced, output: boundedText{max: a.opts.MaxContent + redactMargin},
		parentTurn: top, parentTool: tool, toolCallID: toolCallID, name: name}
	top.subs = append(top.subs, sub)
	return sub
}

// topTurn is the prompt turn a turn or subagent belongs to.
func (t *acpTurn) topTurn() *acpTurn {
	if t.parentTurn != nil {
		return t.parentTurn
	}
	return t
}

// bind makes child the subagent's own session: its updates and requests
// go into the subagent.
func (a *ACP) bind(sub *acpTurn, child *acpSession) {
	if child == nil || sub.child == child || slices.ContainsFunc(child.turns, func(t *acpTurn) bool { return t.parentTurn == nil }) {
		return // (a session with prompt turns of its own is no subagent's)
	}
	if sub.child != nil {
		sub.child.turns = slices.DeleteFunc(sub.child.turns, func(x *acpTurn) bool { return x == sub })
	}
	sub.child = child
	sub.root.set(a.str(SubagentSessionID, child.id))
	child.turns = []*acpTurn{sub}
	child.cost, child.currency, child.costKnown = 0, "", true // a subagent's session starts with it
}

// endSub ends a subagent: what is open in it, then its span, named by
// its name when it ends. Its cost is the turn's too.
func (a *ACP) endSub(sub *acpTurn, at time.Time, status, stopReason string) {
	if sub.ended {
		return
	}
	a.closeOpen(sub, at, stopReason)
	name := a.subagentName(sub.name)
	sub.root.name = "invoke_agent " + name
	sub.root.set(AgentName.String(name))
	a.subagentEnd(sub.root, status)
	if status == "incomplete" {
		sub.root.unfinish(acpClosing(stopReason), "the subagent did not finish before the turn ended")
	}
	if sub.usageKnown {
		// Its tokens are on its span (usage) and the turn's totals.
		top := sub.topTurn()
		top.subUsage.Add(sub.totals.Usage)
	}
	if sub.cost != nil {
		sub.root.set(GenAICost.Float64(*sub.cost))
		top := sub.topTurn()
		top.subCost = roundCost(*sub.cost + top.subCost)
		top.currency = cmp.Or(top.currency, sub.currency)
		if sub.currency != "" {
			sub.root.set(CostCurrency.String(sub.currency))
		}
	}
	if a.opts.CaptureContent && sub.output.b.Len() > 0 {
		sub.root.set(OutputMessages.String(a.outputMessage("", nil, a.textDropped(sub.output.b.String(), a.opts.MaxContent, sub.output.dropped), nil)))
	}
	sub.ended = true
	a.end(sub.root, later(sub.start, at))
	top := sub.topTurn()
	top.subs = slices.DeleteFunc(top.subs, func(x *acpTurn) bool { return x == sub })
	if sub.child != nil {
		sub.child.turns = slices.DeleteFunc(sub.child.turns, func(x *acpTurn) bool { return x == sub })
	}
}
