package spanmap

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// ACP traces an editor's ACP session: a trace per session/prompt turn. It
// is told each message as it crossed, decoded (Observe), and knows
// nothing of processes or of JSON-RPC's framing. Its spans are drafts,
// as every source's: each is made as it ends (a turn's root as the turn
// ends), with the IDs chosen as it opened, so its tracer's provider must
// use IDGenerator, as a Stream's. Safe for use from one goroutine at a
// time.
type ACP struct {
	mu sync.Mutex
	builder
	envCtx   context.Context                   // TRACEPARENT from the environment, if any
	awaiting map[*parse.ACPRequest]*acpRequest // the requests unanswered the trace holds something for
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
	// output is the answer's text (content capture), kept up to the
	// limit and a margin for redaction, what is past it counted.
	output   boundedText
	untraced int64 // a.untraced when the turn began
	ended    bool
	// A subagent is an acpTurn too: its span is root, under parentTurn.
	parentTurn *acpTurn
	subs       []*acpTurn  // a turn's subagents still open
	child      *acpSession // a subagent's own session, when it has one
	toolCallID string      // the tool call that started the subagent, as named
	parentTool *acpTool    // and its span, which the subagent's ends with
	name       string      // the subagent's name
	subCost    float64     // the cost of the turn's subagents ended, summed
	subUsage   Totals      // and their usage
	usageKnown bool        // its own usage was reported (usage)
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
	return &ACP{builder: newBuilder(context.Background(), tracer, opts), envCtx: ctx,
		awaiting: map[*parse.ACPRequest]*acpRequest{}, sessions: map[string]*acpSession{}}
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
		req, ok := a.awaiting[m.Request]
		if !ok {
			return
		}
		delete(a.awaiting, m.Request)
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
