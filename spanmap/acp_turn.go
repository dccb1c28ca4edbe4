package spanmap

import (
	"context"
	"strings"
	"time"

	"github.com/cursor-otel/cursor-otel/parse"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

func (a *ACP) beginTurn(req *acpRequest, m *parse.ACPRequest, at time.Time) {
	p := m.Prompt
	s := a.session(p.SessionID)
	if s == nil {
		// A prompt naming no session is still a turn, closed as any other.
		if s = a.sessions[""]; s == nil {
			s = &acpSession{}
			a.sessions[""] = s
		}
	}
	parent := a.envCtx
	if p.Meta.Traceparent != "" {
		carrier := propagation.MapCarrier{"traceparent": p.Meta.Traceparent, "tracestate": p.Meta.Tracestate}
		if ctx := (propagation.TraceContext{}).Extract(context.Background(), carrier); trace.SpanContextFromContext(ctx).IsValid() {
			parent = ctx
		}
	}
	// Room for what the turn will say by its end (who, usage, cost…).
	attrs := a.appendRootAttributes(make([]attribute.KeyValue, 0, acpRootAttrs), a.agentName(), said{ConversationID, s.id}, said{RequestModel, s.model},
		said{Cwd, s.cwd}, said{ComposerMode, s.mode}, said{ACPSessionTitle, s.title})
	attrs = append(append(attrs, Source.String("acp")), a.who()...)
	attrs = a.appendRPC(attrs, m)
	if a.opts.CaptureContent {
		var text strings.Builder
		for _, b := range p.Prompt {
			text.WriteString(b.Text)
		}
		if text.Len() > 0 {
			attrs = append(attrs, InputMessages.String(inputMessage(a.text(text.String(), a.opts.MaxContent))))
		}
	}
	if !s.lastRoot.IsValid() {
		// The session's turns before this process: an editor that
		// restarted the agent and loaded or resumed the session.
		s.lastRoot, _ = a.lastTurn(s.id)
	}
	name := "invoke_agent " + a.agentName()
	psc := trace.SpanContextFromContext(parent)
	root := &draft{sc: a.reserveRoot(psc, name), parent: psc, name: name, kind: trace.SpanKindClient, start: at, attrs: attrs}
	if s.lastRoot.IsValid() {
		root.links = []trace.Link{{SpanContext: s.lastRoot}}
	}
	t := &acpTurn{sess: s, root: root, tools: map[string]*acpTool{}, untraced: a.untraced, start: at,
		output: boundedText{max: a.opts.MaxContent + redactMargin}}
	s.turns = append(s.turns, t)
	req.turn = t
	s.lastRoot = root.sc
	a.setLastTurn(s.id, s.lastRoot)
}

// closeOpen ends what is still open in a turn or subagent: its thinking,
// requests never answered, tool calls never completed. It says how many
// requests went unanswered.
func (a *ACP) closeOpen(t *acpTurn, at time.Time, stopReason string) (unanswered int) {
	a.endThinking(t)
	if t.waiting != nil {
		a.end(t.waiting, at)
		t.waiting = nil
	}
	for k, req := range a.awaiting {
		if req.turn != t || req.method == "session/prompt" {
			continue
		}
		delete(a.awaiting, k)
		if req.span != nil {
			unanswered++
			req.span.set(ACPUnanswered.Bool(true))
			a.endUnfinished(req.span, closedOpen, "no answer before the turn ended", at)
		}
	}
	for _, tl := range t.tools {
		if !tl.ended {
			tl.span.set(ToolOutcome.String(OutcomeIncomplete))
			a.nameTool(tl)
			tl.ended = true
			a.endUnfinished(tl.span, acpClosing(stopReason), "no completion before the turn ended", later(tl.last, at))
		}
	}
	for k, req := range a.awaiting {
		if req.turn == t {
			delete(a.awaiting, k)
		}
	}
	return unanswered
}

// endTurn closes a turn: what is still open in it ends now (requests
// never answered, tool calls never completed), and the root last.
func (a *ACP) endTurn(t *acpTurn, at time.Time, stopReason string, code codes.Code, why string) {
	for len(t.subs) > 0 {
		a.endSub(t.subs[0], at, "incomplete", stopReason)
	}
	unanswered := a.closeOpen(t, at, stopReason)
	root := t.root
	if stopReason != "" {
		root.set(FinishReasons.StringSlice([]string{stopReason}))
	}
	if t.sess.model != "" {
		root.set(RequestModel.String(t.sess.model))
	}
	if unanswered > 0 {
		root.set(ACPUnanswered.Int(unanswered))
	}
	if lost := a.untraced - t.untraced; lost > 0 {
		// The tracer fell behind and dropped part of the turn's traffic
		// (never the traffic itself): the trace says it may lack spans.
		root.set(ACPUntracedBytes.Int64(lost))
	}
	if t.cost != nil || t.subCost > 0 {
		// cursor.usage.cost is the turn's whole, its subagents'
		// included; gen_ai.usage.cost the turn's own (each subagent's is
		// on its span: summed over the trace, counted once).
		t.totals.Cost, t.totals.Costed = roundCost(t.subCost), true
		if t.cost != nil {
			t.totals.Cost = roundCost(*t.cost + t.subCost)
			root.set(GenAICost.Float64(*t.cost))
		}
	}
	if t.usageKnown || t.subUsage.Usage != (parse.Usage{}) {
		// cursor.usage.* is the turn's whole, its subagents' included;
		// gen_ai.usage.* the turn's own (each subagent's is on its span:
		// summed over the trace, counted once).
		whole := t.totals
		whole.Add(t.subUsage.Usage)
		root.set(whole.appendUsage(nil)...)
	}
	t.totals.Currency = t.currency
	root.set(t.totals.appendCost(nil)...)
	if t.sessionCost != nil {
		root.set(ACPSessionCost.Float64(*t.sessionCost))
	}
	if !t.first.IsZero() {
		// Named as a wrapped run's model call names it.
		ttft := t.first.Sub(t.start)
		root.set(FirstTokenMs.Int64(ttft.Milliseconds()), TimeToFirstChunk.Float64(ttft.Seconds()))
	}
	if t.used != nil {
		root.set(ACPContextUsed.Int64(*t.used))
	}
	if t.size != nil {
		root.set(ACPContextSize.Int64(*t.size))
	}
	if a.opts.CaptureContent && t.output.b.Len() > 0 {
		root.set(OutputMessages.String(a.outputMessage(stopReason, nil, a.textDropped(t.output.b.String(), a.opts.MaxContent, t.output.dropped), nil)))
	}
	if code == codes.Error {
		root.setStatus(codes.Error, why)
	}
	a.end(root, at)
	t.ended = true
	for i, open := range t.sess.turns {
		if open == t {
			t.sess.turns = append(t.sess.turns[:i], t.sess.turns[i+1:]...)
			break
		}
	}
	if a.TurnEnded != nil {
		a.TurnEnded()
	}
}

// Untraced says how many bytes of the session, in all, the tracer did
// not see: the turns open meanwhile say so.
func (a *ACP) Untraced(n int64) {
	a.mu.Lock()
	a.untraced = n
	a.mu.Unlock()
}

// Close ends every turn still open, at at, as ERROR with why (the agent
// exited, or its output could not be read): no trace is left without its
// root.
func (a *ACP) Close(at time.Time, why string, attrs ...attribute.KeyValue) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var open []*acpTurn
	for _, s := range a.sessions {
		for _, t := range s.turns {
			if t.parentTurn == nil { // a subagent ends with its turn
				open = append(open, t)
			}
		}
	}
	for _, t := range open {
		t.root.set(attrs...)
		t.root.set(ACPTurnEnd.String("agent_exited"))
		t.root.unfinish(closedOpen, why)
		a.endTurn(t, at, "", codes.Error, why)
	}
}

// endUnfinished ends a span whose work was still open, by the rule
// every source follows (unfinish).
func (a *ACP) endUnfinished(span *draft, how closing, why string, at time.Time) {
	span.unfinish(how, why)
	a.end(span, at)
}
