package spanmap

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// ACP traces an editor's ACP session: a trace per session/prompt turn. It
// is told each message as it crossed, decoded (Observe), and knows
// nothing of processes or of JSON-RPC's framing. Its spans are drafts,
// as every source's: each is made as it ends (a turn's root as the turn
// ends), with the IDs chosen as it opened, so its tracer's provider must
// use IDGenerator, as a Recorder's. Safe for use from one goroutine at a
// time.
type ACP struct {
	mu       sync.Mutex
	rec      shaper // the options, and what shapes what is recorded
	tracer   trace.Tracer
	rng      *rand.Rand                        // the IDs of the spans under a turn's root
	envCtx   context.Context                   // TRACEPARENT from the environment, if any
	pending  map[*parse.ACPRequest]*acpRequest // the requests unanswered the trace holds something for
	sessions map[string]*acpSession
	untraced int64 // bytes of the session the tracer did not see (it fell behind)
	// who: initialize's agentInfo and clientInfo, and the protocol
	// version (the agent's answer's, agreed; else the editor's).
	agent, agentVersion, client, clientVersion, protocol string
	// TurnEnded is called after each turn's root ends (the caller
	// flushes the trace then); nil does nothing.
	TurnEnded func()
}

type acpRequest struct {
	method  string
	session string
	cwd     string // a session's working directory (new, load, resume, fork)
	at      time.Time
	span    *draft   // the span the request opened, if any
	sub     *acpTurn // the subagent cursor/task started
	turn    *acpTurn
}

type acpSession struct {
	id       string
	model    string
	cwd      string
	mode     string // the session's mode (set_mode, current_mode_update), on each turn
	title    string // session_info_update's, on each turn with content capture
	lastRoot trace.SpanContext
	// cost is the session's cumulative cost last reported (usage_update),
	// in currency; costKnown says it is known from the session's start,
	// so that the next report's difference is the turn's (a session
	// loaded or resumed has cost before this process saw it).
	cost      float64
	currency  string
	costKnown bool
	// turns are the session's turns not yet answered, in the order their
	// prompts came: an agent answers a prompt sent before the previous
	// one's answer after it (or cancels the previous one), so what the
	// agent does meanwhile is the oldest turn's.
	turns []*acpTurn
}

// turn is the turn the agent is working on: the oldest not yet answered.
func (s *acpSession) turn() *acpTurn {
	if s == nil {
		return nil
	}
	for _, t := range s.turns {
		if !t.ended {
			return t
		}
	}
	return nil
}

type acpTurn struct {
	sess        *acpSession
	root        *draft
	tools       map[string]*acpTool
	current     *acpTool // the tool call in progress: where the agent's requests go
	thinking    *thinkingPhase
	cost        *float64 // what the turn added to the session's cost, when known
	sessionCost *float64 // the session's cumulative cost at the turn's last report
	currency    string
	totals      Totals // its usage, and its cost in currency, for the root
	used        *int64
	size        *int64
	output      strings.Builder
	// outputDropped are the bytes of the answer past what output keeps.
	outputDropped int64
	untraced      int64 // a.untraced when the turn began
	ended         bool
	// A subagent is an acpTurn too: its span is root, under parentTurn.
	parentTurn *acpTurn
	subs       []*acpTurn  // a turn's subagents still open
	child      *acpSession // a subagent's own session, when it has one
	toolCallID string      // the tool call that started the subagent, as named
	parentTool *acpTool    // and its span, which the subagent's ends with
	name       string      // the subagent's name
	subCost    float64     // the cost of the turn's subagents ended, summed
	untilIdle  bool        // protocol version 2: its prompt answered, the turn ends at idle
	waiting    *draft      // protocol version 2: requires_action, until the next state
	start      time.Time
	first      time.Time // the first agent_message_chunk's
}

type acpTool struct {
	span  *draft
	kind  string
	paths []string // its locations' files
	// mcpTool and mcpServer: an MCP tool's name and server (rawInput's
	// toolName and providerIdentifier).
	mcpTool, mcpServer string
	last               time.Time
	ended              bool
}

// The attributes a turn's root and a tool call's span have room for as
// they open: about what they say by their end, so that what is said on
// the way seldom moves them.
const (
	acpRootAttrs = 32
	acpToolAttrs = 12
)

// NewACP traces into tracer; ctx holds the parent from TRACEPARENT, if any.
func NewACP(ctx context.Context, tracer trace.Tracer, opts Options) *ACP {
	return &ACP{rec: newShaper(opts), tracer: tracer, rng: newRand(), envCtx: ctx,
		pending: map[*parse.ACPRequest]*acpRequest{}, sessions: map[string]*acpSession{}}
}

// Observe records one message (parse.ACPDecoder's), at when it crossed.
func (a *ACP) Observe(e parse.ACPEvent, at time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch m := e.(type) {
	case *parse.ACPRequest:
		a.request(m, at)
	case *parse.ACPNotification:
		a.notification(m, at)
	case *parse.ACPAnswer:
		req, ok := a.pending[m.Request]
		if !ok {
			return
		}
		delete(a.pending, m.Request)
		a.answer(req, m, at)
	}
}

func (a *ACP) session(id string) *acpSession {
	if id == "" {
		return nil
	}
	s := a.sessions[id]
	if s == nil {
		s = &acpSession{id: id}
		a.sessions[id] = s
	}
	return s
}

func (a *ACP) request(m *parse.ACPRequest, at time.Time) {
	ref := m.Ref
	req := &acpRequest{method: m.Method, session: ref.SessionID, cwd: ref.Cwd, at: at}
	if old := a.pending[m.Replaces]; old != nil {
		delete(a.pending, m.Replaces)
		a.abandon(old, at) // an id reused before its answer: the answer will be the new one's
	}
	a.pending[m] = req
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
			p := requestDraft(m.Method, m.Method, trace.SpanKindClient, m)
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
		if a.rec.opts.CaptureContent && isWait(m.Method) && len(m.Params) > 0 {
			p.attrs = append(p.attrs, ACPRequestText.String(a.rec.jsonText(string(m.Params), a.rec.opts.MaxContent)))
		}
		req.span = a.startDraft(parent, p, at)
	}
	switch {
	case m.Method == "session/request_permission":
		if ref.ToolCall != nil && ref.ToolCall.ToolCallID != "" {
			parent = a.tool(t, *ref.ToolCall, at).span.sc
		}
		start(a.wait(OpRequestPermission, OpRequestPermission, m))
	case acpWaits[m.Method] != "":
		start(a.wait(m.Method, acpWaits[m.Method], m))
	case m.Method == "cursor/task":
		// A subagent: its span is the subagent's, ended by the answer.
		name := ref.SubagentType
		if name == "" {
			name = ref.Name
		}
		sub := a.subagent(t, ref.ToolCallID, name, at)
		req.sub = sub
		if ref.SubagentType != "" {
			sub.root.set(SubagentType.String(a.rec.text(ref.SubagentType, maxMessage)))
		}
		if ref.Model != "" {
			sub.root.set(SubagentModel.String(a.rec.text(ref.Model, maxMessage)))
		}
	case m.Method == "cursor/update_todos":
		// Not a span: the todo list as it stands, an event.
		a.todos(t, ref.Todos, at)
	case m.Method == "cursor/generate_image":
		start(requestDraft("execute_tool generate_image", OpExecuteTool, trace.SpanKindInternal, m), ToolName.String("generate_image"), ToolType.String("function"))
	default:
		var attrs []attribute.KeyValue
		if ref.Path != "" {
			attrs = append(attrs, ToolPath.String(a.rec.text(ref.Path, a.rec.opts.MaxContent)))
		}
		start(requestDraft(m.Method, OpExecuteTool, trace.SpanKindClient, m), attrs...)
	}
}

// wait is an ACP wait on the person (the shared waitDraft), named name,
// asked by request m when one did: its cursor.acp.wait is the name the
// attribute had before every source had waits, kept for the queries
// written with it.
func (a *ACP) wait(name, op string, m *parse.ACPRequest) *draft {
	p := waitDraft(op)
	p.name = name
	p.attrs = append(p.attrs, ACPWait.Bool(true))
	if m != nil {
		p.attrs = appendRPC(p.attrs, m)
	}
	return p
}

// startDraft opens the span the draft p describes under parent, at at:
// its IDs are chosen now, and it is made when it ends (end).
func (a *ACP) startDraft(parent trace.SpanContext, p *draft, at time.Time) *draft {
	p.sc, p.parent, p.start = childOf(a.rng, parent), parent, at
	return p
}

// end makes the span p describes, ended at at: each span reaches the
// exporter as it ends, a turn's root as its turn ends.
func (a *ACP) end(p *draft, at time.Time) {
	p.end = at
	if !p.sc.IsValid() {
		return // a tracer that makes no spans (noop): its probe gave the root no IDs
	}
	emitSpan(context.Background(), a.tracer, a.rec.opts.CaptureContent, p)
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

// acpWaits are the agent's requests that wait on the person, beside
// session/request_permission, with their gen_ai.operation.name: a
// question, a plan to approve, the protocol's elicitation.
var acpWaits = map[string]string{
	"cursor/ask_question": "ask_question",
	"cursor/create_plan":  "create_plan",
	"elicitation/create":  "elicitation",
}

func isWait(method string) bool {
	return method == "session/request_permission" || parse.ACPWaitsOnPerson(method)
}

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
		if a.rec.opts.CaptureContent {
			texts = append(texts, a.rec.text(text, a.rec.opts.MaxContent))
		}
	}
	attrs := []attribute.KeyValue{statusKey.StringSlice(statuses)}
	if a.rec.opts.CaptureContent {
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
	return a.rec.appendIdentity(attrs, a.agentName(), conversation)
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
		p := a.wait("requires_action", "requires_action", nil)
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
	state, stop, _ := u.StateOf()
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
	return a.rec.facts(said{AgentVersion, a.agentVersion}, said{ACPAgentName, a.agent}, said{ACPAgentVersion, a.agentVersion},
		said{ACPClientName, a.client}, said{ACPClientVersion, a.clientVersion}, said{ACPProtocolVersion, a.protocol})
}

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
	attrs := a.rec.appendRootAttributes(make([]attribute.KeyValue, 0, acpRootAttrs), a.agentName(), said{ConversationID, s.id}, said{RequestModel, s.model},
		said{Cwd, s.cwd}, said{ComposerMode, s.mode}, said{ACPSessionTitle, s.title})
	attrs = append(attrs, a.who()...)
	attrs = appendRPC(attrs, m)
	if a.rec.opts.CaptureContent {
		var text strings.Builder
		for _, b := range p.Prompt {
			text.WriteString(b.Text)
		}
		if text.Len() > 0 {
			attrs = append(attrs, InputMessages.String(inputMessage(a.rec.text(text.String(), a.rec.opts.MaxContent))))
		}
	}
	turns := a.rec.opts.Turns
	if !s.lastRoot.IsValid() && s.id != "" && turns != nil {
		// The session's turns before this process: an editor that
		// restarted the agent and loaded or resumed the session.
		if last, ok := turns.Last(s.id); ok {
			s.lastRoot = last
		}
	}
	name := "invoke_agent " + a.agentName()
	// As a stream's session: a span started and never ended gives the
	// root its IDs and the sampler's decision (a TRACEPARENT's, a
	// ratio's); the root is made with them as the turn ends.
	psc := trace.SpanContextFromContext(parent)
	_, probe := a.tracer.Start(trace.ContextWithSpanContext(context.Background(), psc), name, trace.WithSpanKind(trace.SpanKindClient))
	root := &draft{sc: probe.SpanContext(), parent: psc, name: name, kind: trace.SpanKindClient, start: at, attrs: attrs}
	if s.lastRoot.IsValid() {
		root.links = []trace.Link{{SpanContext: s.lastRoot}}
	}
	t := &acpTurn{sess: s, root: root, tools: map[string]*acpTool{}, untraced: a.untraced, start: at}
	s.turns = append(s.turns, t)
	req.turn = t
	s.lastRoot = root.sc
	if s.id != "" && turns != nil {
		turns.SetLast(s.id, s.lastRoot)
	}
}

func (a *ACP) notification(m *parse.ACPNotification, at time.Time) {
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
		if a.rec.opts.CaptureContent && u.Title != "" {
			s.title = a.rec.text(u.Title, maxMessage)
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
			t.thinking = &thinkingPhase{start: at, text: boundedText{max: a.rec.opts.MaxContent}}
		}
		t.thinking.last = at
		t.thinking.deltas++
		if a.rec.opts.CaptureContent {
			t.thinking.text.add(u.ChunkText())
		}
	case "agent_message_chunk":
		if t.first.IsZero() {
			t.first = at
		}
		if a.rec.opts.CaptureContent {
			// Kept up to the limit and a margin for redaction; what is
			// dropped past it is counted for the truncation marker.
			text := u.ChunkText()
			room := max(a.rec.opts.MaxContent+redactMargin-t.output.Len(), 0)
			if len(text) > room {
				t.outputDropped += int64(len(text) - room)
				text = text[:room]
			}
			t.output.WriteString(text)
		}
	case "tool_call", "tool_call_update":
		a.tool(t, u.ACPToolCall, at)
	case "plan":
		a.plan(t, u.Entries, at)
	case "subagent_update", "subagent_spawned":
		a.subagentUpdate(t, s, u, at)
	case "session_message", "session_message_chunk":
		// Messages between sessions: events, their text never.
		t.root.addEvent(EventACPNotification, at, ACPMethod.String(u.SessionUpdate))
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

// tool is the span of a tool call, opened at its first update; each
// update moves its end, and completed or failed ends it.
func (a *ACP) tool(t *acpTurn, tc parse.ACPToolCall, at time.Time) *acpTool {
	tl := t.tools[tc.ToolCallID]
	if tl == nil {
		// Named when it ends (nameTool): a later update may give its kind.
		attrs := append(a.appendCommon(make([]attribute.KeyValue, 0, acpToolAttrs), t.sess),
			OperationName.String(OpExecuteTool), ToolCallID.String(tc.ToolCallID), ToolType.String("function"))
		tl = &acpTool{span: a.startDraft(t.root.sc, &draft{name: "execute_tool", kind: trace.SpanKindInternal, attrs: attrs}, at)}
		t.tools[tc.ToolCallID] = tl
	}
	if tl.ended {
		return tl
	}
	tl.last = at
	if tc.Kind != "" && tc.Kind != tl.kind {
		tl.kind = tc.Kind
		tl.span.set(ACPToolKind.String(tc.Kind))
	}
	if tool, server := tc.MCP(); tool != "" || server != "" {
		tl.mcpTool, tl.mcpServer = tool, server
	}
	if len(tc.Locations) > 0 {
		tl.paths = tl.paths[:0]
		for _, l := range tc.Locations {
			tl.paths = append(tl.paths, l.Path)
		}
	}
	if tc.Title != "" {
		tl.span.set(ACPToolTitle.String(a.rec.text(tc.Title, a.rec.opts.MaxContent)))
	}
	if a.rec.opts.CaptureContent && len(tc.RawInput) > 0 {
		tl.span.set(ToolArguments.String(a.rec.jsonText(string(tc.RawInput), a.rec.opts.MaxContent)))
	}
	if a.rec.opts.CaptureContent && len(tc.RawOutput) > 0 {
		tl.span.set(ToolResult.String(a.rec.jsonText(string(tc.RawOutput), a.rec.opts.MaxContent)))
	}
	switch tc.Status {
	case "completed":
		tl.span.set(ACPToolStatus.String(tc.Status), ToolOutcome.String("success"))
		a.endTool(t, tl, at)
	case "failed":
		tl.span.set(ACPToolStatus.String(tc.Status), ToolOutcome.String(OutcomeError), ErrorType.String(ErrTool))
		tl.span.setStatus(codes.Error, "tool call failed")
		a.endTool(t, tl, at)
	case "", "pending", "in_progress":
		if tc.Status != "" {
			tl.span.set(ACPToolStatus.String(tc.Status))
		}
		t.current = tl
	}
	return tl
}

// toolFor is the tool call the agent's request for path (or for no file)
// is work for: of the tool calls in flight, the one whose locations name
// the file (the latest updated, if several do), else the one in progress.
func (t *acpTurn) toolFor(path string) *acpTool {
	var found *acpTool
	if path != "" {
		for _, tl := range t.tools {
			if !tl.ended && slices.Contains(tl.paths, path) && (found == nil || tl.last.After(found.last)) {
				found = tl
			}
		}
	}
	if found == nil && t.current != nil && !t.current.ended {
		found = t.current
	}
	return found
}

func (a *ACP) endTool(t *acpTurn, tl *acpTool, at time.Time) {
	for _, sub := range slices.Clone(t.topTurn().subs) {
		if sub.parentTool == tl {
			a.endSub(sub, at, "", "") // the tool that ran it is done
		}
	}
	a.nameTool(tl)
	tl.ended = true
	a.end(tl.span, at)
	if t.current == tl {
		t.current = nil
	}
}

func (a *ACP) endThinking(t *acpTurn) {
	th := t.thinking
	if th == nil {
		return
	}
	t.thinking = nil
	t.root.addEvent(EventThinking, th.start, th.attributes(&a.rec)...)
}

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
			a.endTurn(t, at, "", codes.Error, a.rec.text(m.Error.Message, 1024))
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
				req.sub.root.set(AgentID.String(r.AgentID), SubagentID.String(r.AgentID))
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
		req.span.setStatus(codes.Error, a.rec.text(m.Error.Message, 1024))
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
		req.span.set(append(attrs, a.rec.waitAnswer(permissionOutcome(r.Outcome.Outcome, kind))...)...)
	} else if acpWaits[req.method] != "" {
		if outcome := m.Result.Outcome; outcome != "" {
			req.span.set(ACPOutcome.String(a.rec.text(outcome, maxMessage)))
			req.span.set(a.rec.waitAnswer(outcome)...)
		}
		if a.rec.opts.CaptureContent && len(m.Raw) > 0 {
			req.span.set(ACPResponseText.String(a.rec.jsonText(string(m.Raw), a.rec.opts.MaxContent)))
		}
	}
	a.end(req.span, at)
}

// usage records a prompt answer's token usage on its turn: as the
// conventions define it, input includes the cached tokens
// (parse.ACPUsage.Input); the totals under cursor.usage.* as every
// source gives them.
func (a *ACP) usage(t *acpTurn, u *parse.ACPUsage) {
	if u == nil {
		return
	}
	t.totals.Usage = parse.Usage{InputTokens: u.Input() - u.CacheRead() - u.CacheWrite(), OutputTokens: u.Output(),
		CacheReadTokens: u.CacheRead(), CacheCreationTokens: u.CacheWrite()}
	t.root.set(usageAttributes(t.totals.Usage)...)
	t.root.set(t.totals.appendUsage(nil)...)
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

// closeOpen ends what is still open in a turn or subagent: its thinking,
// requests never answered, tool calls never completed. It says how many
// requests went unanswered.
func (a *ACP) closeOpen(t *acpTurn, at time.Time, stopReason string) (unanswered int) {
	a.endThinking(t)
	if t.waiting != nil {
		a.end(t.waiting, at)
		t.waiting = nil
	}
	for k, req := range a.pending {
		if req.turn != t || req.method == "session/prompt" {
			continue
		}
		delete(a.pending, k)
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
	for k, req := range a.pending {
		if req.turn == t {
			delete(a.pending, k)
		}
	}
	return unanswered
}

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
	attrs := a.rec.rootAttributes(a.agentName(), said{ConversationID, top.sess.id})
	if toolCallID != "" {
		attrs = append(attrs, ToolCallID.String(toolCallID))
	}
	span := a.startDraft(parent, &draft{name: "invoke_agent", kind: trace.SpanKindInternal, attrs: attrs}, at)
	sub := &acpTurn{sess: top.sess, root: span, tools: map[string]*acpTool{}, start: at, untraced: a.untraced,
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
	name := sub.name
	if name == "" {
		name = "subagent"
	}
	sub.root.name = "invoke_agent " + name
	sub.root.set(AgentName.String(a.rec.text(name, maxMessage)))
	if status != "" {
		sub.root.set(SubagentStatus.String(status))
	}
	switch status {
	case "failed", "error":
		sub.root.setStatus(codes.Error, "the subagent failed")
	case "incomplete":
		attrs, code, msg := unfinished(acpClosing(stopReason), "the subagent did not finish before the turn ended")
		sub.root.set(attrs...)
		sub.root.setStatus(code, msg)
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
	if a.rec.opts.CaptureContent && sub.output.Len() > 0 {
		sub.root.set(OutputMessages.String(a.rec.outputMessage("", nil, a.rec.textDropped(sub.output.String(), a.rec.opts.MaxContent, int(sub.outputDropped)), nil)))
	}
	sub.ended = true
	a.end(sub.root, later(sub.start, at))
	top := sub.topTurn()
	top.subs = slices.DeleteFunc(top.subs, func(x *acpTurn) bool { return x == sub })
	if sub.child != nil {
		sub.child.turns = slices.DeleteFunc(sub.child.turns, func(x *acpTurn) bool { return x == sub })
	}
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
	if a.rec.opts.CaptureContent && t.output.Len() > 0 {
		root.set(OutputMessages.String(a.rec.outputMessage(stopReason, nil, a.rec.textDropped(t.output.String(), a.rec.opts.MaxContent, int(t.outputDropped)), nil)))
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
		incomplete, _, _ := unfinished(closedOpen, why)
		t.root.set(incomplete...)
		a.endTurn(t, at, "", codes.Error, why)
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

// appendRPC appends what names a request by the JSON-RPC conventions,
// old and current.
func appendRPC(attrs []attribute.KeyValue, m *parse.ACPRequest) []attribute.KeyValue {
	return append(attrs, RPCSystem.String("jsonrpc"), RPCSystemName.String("jsonrpc"), RPCMethod.String(m.Method),
		RPCRequestID.String(m.ID), JSONRPCRequestID.String(m.ID), JSONRPCVersion.String("2.0"))
}

// rpcError is an error answer's attributes.
func (a *ACP) rpcError(e *parse.RPCError) []attribute.KeyValue {
	code := fmt.Sprint(e.Code)
	return []attribute.KeyValue{RPCJSONRPCCode.Int(e.Code), RPCStatusCode.String(code), ErrorType.String(code),
		RPCJSONRPCMessage.String(a.rec.text(e.Message, 1024))}
}

// nameTool names a tool call's span by what its updates said, at its end.
func (a *ACP) nameTool(tl *acpTool) {
	name := acpToolName(tl.kind)
	if tl.mcpServer != "" || tl.mcpTool != "" {
		// An MCP tool is named by its tool, with its server.
		tl.span.set(MCPServer.String(tl.mcpServer), MCPTool.String(tl.mcpTool), MCPMethod.String("tools/call"))
		if tl.mcpTool != "" {
			name = tl.mcpTool
		}
	}
	tl.span.name = "execute_tool " + name
	tl.span.set(ToolName.String(name))
}

// acpToolName is a tool call's gen_ai.tool.name: ACP's kind, named as the
// same tool is in a wrapped run where the two meet (execute is shell,
// fetch is web_fetch); the kind itself is in cursor.tool.kind.
func acpToolName(kind string) string {
	switch kind {
	case "":
		return "other"
	case "execute":
		return "shell"
	case "fetch":
		return "web_fetch"
	}
	return kind
}

// endUnfinished ends a span whose work was still open, by the rule
// every source follows (unfinished).
func (a *ACP) endUnfinished(span *draft, how closing, why string, at time.Time) {
	attrs, code, msg := unfinished(how, why)
	span.set(attrs...)
	span.setStatus(code, msg)
	a.end(span, at)
}
