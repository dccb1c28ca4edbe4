package spanmap

import (
	"time"

	"github.com/cursor-otel/cursor-otel/parse"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

func (a *ACP) request(m *parse.ACPRequest, at time.Time) {
	ref := m.Ref
	req := &acpRequest{method: m.Method, session: ref.SessionID, cwd: ref.Cwd, at: at}
	if old := a.awaiting[m.Replaces]; old != nil {
		delete(a.awaiting, m.Replaces)
		a.abandon(old, at) // an id reused before its answer: the answer will be the new one's
	}
	a.awaiting[m] = req
	if m.FromEditor {
		switch m.Method {
		case "initialize":
			p := m.Initialize
			if p.ClientInfo != nil {
				a.client, a.clientVersion = p.ClientInfo.Name, p.ClientInfo.Version
			}
			a.protocol = p.Version()
		case "session/prompt":
			a.beginTurn(req, m, at)
			return
		case "session/set_model":
			if s := a.session(ref.SessionID); s != nil && ref.ModelID != "" {
				s.model = ref.ModelID
			}
		case "session/set_mode":
			if s := a.session(ref.SessionID); s != nil && ref.ModeID != "" {
				a.setMode(s, ref.ModeID)
			}
		}
		// Any other request the editor makes of a session during its turn,
		// known or not, is a span of that turn, from request to answer
		// (one naming no session, session/new or list, is no turn's).
		if t := a.sessions[ref.SessionID].turn(); t != nil && ref.SessionID != "" {
			req.turn = t
			p := a.requestDraft(m.Method, trace.SpanKindClient, m)
			p.attrs = a.appendCommon(p.attrs, t.sess)
			req.span = a.startDraft(t.root.sc, p, at)
		}
		return
	}
	// The agent asks the editor: work done for the turn in progress, or
	// a wait on the person. cursor-otel only watches: the editor answers.
	t := a.turnFor(ref)
	if t == nil {
		return
	}
	s := t.sess
	req.turn = t
	parent := t.root.sc
	if tl := t.tools[ref.ToolCallID]; ref.ToolCallID != "" && tl != nil && !tl.ended {
		parent = tl.span.sc
	} else if tl := t.toolFor(ref.Path); tl != nil {
		parent = tl.span.sc
	}
	start := func(p *draft, attrs ...attribute.KeyValue) {
		p.attrs = append(a.appendCommon(p.attrs, s), attrs...)
		if a.opts.CaptureContent && isWait(m.Method) && len(m.Params) > 0 {
			p.attrs = append(p.attrs, ACPRequestText.String(a.jsonText(string(m.Params), a.opts.MaxContent)))
		}
		req.span = a.startDraft(parent, p, at)
	}
	switch {
	case m.Method == "session/request_permission":
		if ref.ToolCall != nil && ref.ToolCall.ToolCallID != "" {
			parent = a.tool(t, *ref.ToolCall, at).span.sc
		}
		start(a.wait(OpRequestPermission, m))
	case isWait(m.Method):
		start(a.wait(waitSpanName(m.Method), m))
	case m.Method == "cursor/task":
		// A subagent: its span is the subagent's, ended by the answer.
		name := ref.SubagentType
		if name == "" {
			name = ref.Name
		}
		sub := a.subagent(t, ref.ToolCallID, name, at)
		req.sub = sub
		if ref.SubagentType != "" {
			sub.root.set(SubagentType.String(a.text(ref.SubagentType, maxMessage)))
		}
		if ref.Model != "" {
			sub.root.set(SubagentModel.String(a.text(ref.Model, maxMessage)))
		}
	case m.Method == "cursor/update_todos":
		// Not a span: the todo list as it stands, an event.
		a.todos(t, ref.Todos, at)
	case m.Method == "cursor/generate_image":
		p := a.requestDraft("execute_tool generate_image", trace.SpanKindInternal, m)
		start(p, OperationName.String(OpExecuteTool), ToolName.String("generate_image"), ToolType.String("function"))
	default:
		var attrs []attribute.KeyValue
		if ref.Path != "" {
			attrs = append(attrs, ToolPath.String(a.text(ref.Path, a.opts.MaxContent)))
		}
		// A JSON-RPC request, no GenAI operation: the tool it does work
		// for is its parent.
		start(a.requestDraft(m.Method, trace.SpanKindClient, m), attrs...)
	}
}

// wait is an ACP wait on the person (the shared waitDraft), named name,
// asked by request m when one did: its cursor.acp.wait is the name the
// attribute had before every source had waits, kept for the queries
// written with it.
func (a *ACP) wait(name string, m *parse.ACPRequest) *draft {
	p := waitDraft(name)
	p.attrs = append(p.attrs, ACPWait.Bool(true))
	if m != nil {
		p.attrs = a.appendRPC(p.attrs, m)
	}
	return p
}

// startDraft opens the span the draft p describes under parent, at at:
// its IDs are chosen now, and it is made when it ends (end).
func (a *ACP) startDraft(parent trace.SpanContext, p *draft, at time.Time) *draft {
	p.sc, p.parent, p.start = a.child(parent), parent, at
	return p
}

// end makes the span p describes, ended at at: each span reaches the
// exporter as it ends, a turn's root as its turn ends.
func (a *ACP) end(p *draft, at time.Time) {
	p.end = at
	a.emit(p)
}

// abandon ends what a request opened that its answer will never end.
func (a *ACP) abandon(req *acpRequest, at time.Time) {
	if req.span != nil {
		req.span.set(ACPUnanswered.Bool(true))
		a.endUnfinished(req.span, closedOpen, "its id was used again before its answer", at)
	}
	if req.sub != nil {
		a.endSub(req.sub, at, "incomplete", "")
	}
}

// waitSpanName names the span of an agent's request that waits on the
// person: a question and the protocol's elicitation by their method; a
// plan to approve is an approval, request_permission, as the stream's
// createPlanRequestQuery.
func waitSpanName(method string) string {
	if k := parse.ACPWaitKind(method); k == parse.WaitPlan || k == parse.WaitPermission {
		return OpRequestPermission
	}
	return method
}

func isWait(method string) bool { return parse.ACPWaitKind(method) != "" }
