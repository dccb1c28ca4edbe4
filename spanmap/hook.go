package spanmap

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// Hooks turns the events Cursor's hooks hand, one per process, into the
// span model a stream makes: a trace per turn of a conversation,
// invoke_agent cursor-agent for its root, chat {model} per generation,
// execute_tool {tool} per tool call. The hooks journal their events; a
// turn is built whole from them (Build) once it has closed, with IDs
// derived from the conversation, generation and tool call: a build
// redone makes the same spans.
type Hooks struct {
	builder
}

// NewHooks records with opts, its spans made through tracer (Make), under
// ctx's span when they name no parent.
func NewHooks(ctx context.Context, tracer trace.Tracer, opts Options) *Hooks {
	return &Hooks{builder: newBuilder(ctx, tracer, opts)}
}

// HookState is what a conversation traced through hooks keeps between
// builds. It is JSON. Each turn of the conversation (a prompt and the
// agent's work on it) is a trace of its own, built whole by one Build,
// and what the conversation says of itself (its model, workspace, mode)
// is on each turn's root. (An older version's state may hold the turn
// it had under way, under other names: they are ignored.)
type HookState struct {
	ConversationID string    `json:"conversation_id"`
	Last           time.Time `json:"last"`
	Model          string    `json:"model,omitempty"`
	Workspace      string    `json:"workspace,omitempty"`
	CursorVersion  string    `json:"cursor_version,omitempty"`
	Mode           string    `json:"mode,omitempty"` // sessionStart's composer_mode

	Turns int       `json:"turns,omitempty"`     // turns opened so far
	Ended int       `json:"ended,omitempty"`     // 1 + the turns there were at the last end said with none open
	Root  *HookRoot `json:"last_root,omitempty"` // the last closed turn's root, for the next to link to
	// Closed are the latest generations whose chat span is made, with
	// their turn: an event that names one later (a late response, a
	// session end) makes it no second time.
	Closed []HookClosed `json:"closed,omitempty"`
	// Compactions announced before a turn began: the next turn has them.
	Compactions []HookCompaction `json:"compactions,omitempty"`
	// Spanned are the calls whose span is made (a shell call is told twice:
	// afterShellExecution, and postToolUse or postToolUseFailure), so
	// that a later telling makes none.
	Spanned []string `json:"told,omitempty"`
}

// HookRoot names a turn's root span, in hexadecimal.
type HookRoot struct {
	TraceID string `json:"trace_id"`
	SpanID  string `json:"span_id"`
}

// SpanContext is the root r names; invalid when r names none.
func (r *HookRoot) SpanContext() trace.SpanContext {
	if r == nil {
		return trace.SpanContext{}
	}
	t, terr := trace.TraceIDFromHex(r.TraceID)
	s, serr := trace.SpanIDFromHex(r.SpanID)
	if terr != nil || serr != nil {
		return trace.SpanContext{}
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: t, SpanID: s, TraceFlags: trace.FlagsSampled, Remote: true})
}

// HookClosed is a generation whose chat span is made, and its turn.
type HookClosed struct {
	Generation string `json:"generation"`
	Turn       string `json:"turn"`
}

// HookCompaction is a context compaction preCompact announced.
type HookCompaction struct {
	At time.Time        `json:"at"`
	C  parse.Compaction `json:"compaction"`
}

// Bounds on what a conversation remembers: a conversation of any length
// keeps a state of the same size.
const (
	maxClosed  = 8  // closed generations
	maxSpanned = 16 // calls whose span is made
)

// see keeps what an event at now says of its conversation, and returns
// the model it names as the session's.
func (st *HookState) see(ev parse.HookEvent, now time.Time) (model string) {
	st.ConversationID = cmp.Or(st.ConversationID, ev.ConversationID)
	st.Last = later(st.Last, now) // a journal's events may come in any order
	if ev.NamesSessionModel() {
		model = ev.Model
	}
	st.Model = parse.BetterModel(st.Model, ev.ModelID, model)
	st.Workspace = cmp.Or(ev.Workspace, st.Workspace)
	st.CursorVersion = cmp.Or(ev.CursorVersion, st.CursorVersion)
	st.Mode = cmp.Or(ev.Mode, st.Mode)
	return model
}

// markSpanned remembers key in Spanned, the oldest forgotten past maxSpanned.
func (st *HookState) markSpanned(key string) {
	st.Spanned = append(st.Spanned, key)[max(0, len(st.Spanned)+1-maxSpanned):]
}

// closedTurn is the turn of a generation whose chat span is made.
func (st *HookState) closedTurn(gen string) (string, bool) {
	for _, c := range st.Closed {
		if gen != "" && c.Generation == gen {
			return c.Turn, true
		}
	}
	return "", false
}

// endedKey names in Spanned a tool call whose span is made.
func endedKey(toolKey string) string { return "ended\x00" + toolKey }

// subagentKey names in Spanned a subagent whose span is made.
func subagentKey(id string) string { return "subagent\x00" + id }

// turnTraceID is the trace of a conversation's turn: every build derives
// the same.
func turnTraceID(conversation, turn string) trace.TraceID {
	sum := sha256.Sum256([]byte("cursor-otel trace\x00" + conversation + "\x00turn\x00" + turn))
	var id trace.TraceID
	copy(id[:], sum[:16])
	if !id.IsValid() {
		id[15] = 1
	}
	return id
}

// hookSpanID is a span of a conversation, named by what it is.
func hookSpanID(conversation string, parts ...string) trace.SpanID {
	b, _ := json.Marshal(append([]string{conversation}, parts...))
	sum := sha256.Sum256(append([]byte("cursor-otel span\x00"), b...))
	var id trace.SpanID
	copy(id[:], sum[:8])
	if !id.IsValid() {
		id[7] = 1
	}
	return id
}
