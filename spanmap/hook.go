package spanmap

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// Hooks turns the events Cursor's hooks hand, one per process, into the
// span model a stream makes: a trace per conversation, invoke_agent
// cursor-agent for the session, chat {model} per generation,
// execute_tool {tool} per tool call. A hook lives for one event, so what
// must be remembered between events is a HookState the caller keeps, and
// the spans come out as records, with IDs derived from the conversation,
// generation and tool call: processes that never talk to each other make
// one well-formed trace.
type Hooks struct {
	shaper
}

// NewHooks records with opts.
func NewHooks(opts Options) *Hooks {
	return &Hooks{shaper: newShaper(opts)}
}

// HookState is what a conversation traced through hooks keeps between
// hook processes. It is JSON. Each turn of the conversation (a prompt and
// the agent's work on it) is a trace of its own: Turn is the one under
// way, and what the conversation says of itself (its model, workspace,
// mode) is on each turn's root.
type HookState struct {
	ConversationID string    `json:"conversation_id"`
	Last           time.Time `json:"last"`
	Model          string    `json:"model,omitempty"`
	Workspace      string    `json:"workspace,omitempty"`
	CursorVersion  string    `json:"cursor_version,omitempty"`
	Mode           string    `json:"mode,omitempty"` // sessionStart's composer_mode

	Turn  *HookTurn `json:"turn,omitempty"`
	Turns int       `json:"turns,omitempty"`     // turns opened so far
	Ended int       `json:"ended,omitempty"`     // 1 + the turns there were at the last end said with none open
	Root  *HookRoot `json:"last_root,omitempty"` // the last closed turn's root, for the next to link to

	Generations map[string]*HookGeneration `json:"generations,omitempty"`
	Tools       map[string]*HookTool       `json:"tools,omitempty"`
	Subagents   map[string]*HookSubagent   `json:"subagents,omitempty"`
	// Closed are the latest generations whose chat span is made, with
	// their turn: an event that names one later (a late response, a
	// session end) makes it no second time, and a late tool call goes
	// to its turn's trace.
	Closed []HookClosed `json:"closed,omitempty"`
	// Compactions announced while no turn was under way: the next turn
	// has them.
	Compactions []HookCompaction `json:"compactions,omitempty"`
	// A shell call is told twice (afterShellExecution, and postToolUse
	// or postToolUseFailure): Held is the first telling, waiting for the
	// second to make one span of both; Told are the shell calls whose
	// span is made, so that a later telling makes none.
	Held *HookHeld `json:"held,omitempty"`
	Told []string  `json:"told,omitempty"`
}

// HookTurn is a turn under way: one trace, whose root is made when the
// turn's stop comes (or whatever closes it instead).
type HookTurn struct {
	Key         string           `json:"key"` // the generation that opened it, or "#N"
	Number      int              `json:"number"`
	Start       time.Time        `json:"start"`
	Last        time.Time        `json:"last"`
	Failed      bool             `json:"failed,omitempty"` // a generation ended in error
	Totals      *Totals          `json:"totals,omitempty"` // its generations' usage and cost
	Compactions []HookCompaction `json:"compactions,omitempty"`
	Link        *HookRoot        `json:"link,omitempty"` // the root of the turn before
}

// HookRoot names a turn's root span, in hexadecimal.
type HookRoot struct {
	TraceID string `json:"trace_id"`
	SpanID  string `json:"span_id"`
}

// SpanContext is the root r names; invalid when r names none.
func (r *HookRoot) SpanContext() trace.SpanContext {
	l, ok := r.link()
	if !ok {
		return trace.SpanContext{}
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: l.TraceID, SpanID: l.SpanID, TraceFlags: trace.FlagsSampled, Remote: true})
}

// link is the span link to r; false when r names none.
func (r *HookRoot) link() (RecordLink, bool) {
	if r == nil {
		return RecordLink{}, false
	}
	t, terr := trace.TraceIDFromHex(r.TraceID)
	s, serr := trace.SpanIDFromHex(r.SpanID)
	return RecordLink{TraceID: t, SpanID: s}, terr == nil && serr == nil
}

// HookClosed is a generation whose chat span is made, and its turn.
type HookClosed struct {
	Generation string `json:"generation"`
	Turn       string `json:"turn"`
}

// maxClosed bounds the closed generations a conversation remembers: a
// conversation of any length keeps a state of the same size.
const maxClosed = 8

// HookHeld is a shell call's afterShellExecution, held for its
// postToolUse.
type HookHeld struct {
	Key   string          `json:"key"`
	At    time.Time       `json:"at"`
	Event parse.HookEvent `json:"event"`
}

// HookCompaction is a context compaction preCompact announced.
type HookCompaction struct {
	At time.Time        `json:"at"`
	C  parse.Compaction `json:"compaction"`
}

// HookGeneration is one generation (a turn: the prompt and the agent's
// work on it) under way.
type HookGeneration struct {
	Turn      string        `json:"turn"` // the key of the turn it is in
	Start     time.Time     `json:"start"`
	Last      time.Time     `json:"last"`
	Model     string        `json:"model,omitempty"`
	Prompt    string        `json:"prompt,omitempty"` // with content capture
	Text      string        `json:"text,omitempty"`   // with content capture
	Thoughts  []HookThought `json:"thoughts,omitempty"`
	ToolCalls int           `json:"tool_calls,omitempty"`
	Usage     *parse.Usage  `json:"usage,omitempty"`
}

// HookThought is a thinking block.
type HookThought struct {
	At       time.Time     `json:"at"`
	Duration time.Duration `json:"duration"`
	Text     string        `json:"text,omitempty"` // with content capture
	Sum      string        `json:"sum,omitempty"`  // the text's digest, which tells a second copy
}

// HookTool is a tool call started and not done.
type HookTool struct {
	Start      time.Time      `json:"start"`
	Generation string         `json:"generation"`
	Call       parse.ToolCall `json:"call"`
	Cover      time.Time      `json:"cover,omitzero"` // the earliest start of a subagent it ran
}

// HookSubagent is a subagent started and not stopped.
type HookSubagent struct {
	Start      time.Time           `json:"start"`
	Generation string              `json:"generation"`
	Type       string              `json:"type,omitempty"`
	Task       string              `json:"task,omitempty"`
	Facts      parse.SubagentFacts `json:"facts"`
	// Tool is the task tool call's key, when its start was seen: the
	// subagent's span goes under the tool's, as in a wrapped run.
	Tool string `json:"tool,omitempty"`
}

// Step records one hook event at now into st, and returns the spans it
// finished: a tool call done, a generation stopped, a subagent stopped,
// and when a turn closes (its stop, the next prompt, the session's end)
// the turn's root. The spans of the turn under way (OpenTurn) are to be
// held until its root comes: a turn is exported whole.
func (h *Hooks) Step(st *HookState, ev parse.HookEvent, now time.Time) []SpanRecord {
	if st.ConversationID == "" {
		st.ConversationID = ev.ConversationID
	}
	st.Last = later(st.Last, now) // a journal's events may come in any order
	model := ev.Model
	if !sessionModel(ev.Name) {
		model = ""
	}
	st.Model = betterModel(st.Model, ev.ModelID, model)
	st.Workspace = cmp.Or(ev.Workspace, st.Workspace)
	st.CursorVersion = cmp.Or(ev.CursorVersion, st.CursorVersion)
	st.Mode = cmp.Or(ev.Mode, st.Mode)
	var done []SpanRecord
	if held := st.Held; held != nil && shellKey(ev) != held.Key {
		// No second telling came: the first makes the span.
		st.Held = nil
		done = append(done, h.toolDone(st, held.Event, held.At))
		if g := st.Generations[held.Event.GenerationID]; g != nil {
			g.ToolCalls++
		}
	}
	gen := generationOf(st, ev)
	_, closed := closedTurn(st, gen)
	var g *HookGeneration
	if !sessionLevel(ev.Name) && !closed {
		done = append(done, h.enter(st, ev.Name, gen, now)...)
		st.Turn.Start, st.Turn.Last = earlier(st.Turn.Start, now), later(st.Turn.Last, now)
	}
	if gen != "" && !closed && !sessionLevel(ev.Name) {
		if st.Generations == nil {
			st.Generations = map[string]*HookGeneration{}
		}
		if g = st.Generations[gen]; g == nil {
			g = &HookGeneration{Turn: st.Turn.Key, Start: now}
			st.Generations[gen] = g
		}
		g.Start, g.Last, g.Model = earlier(g.Start, now), later(g.Last, now), betterModel(g.Model, ev.ModelID, model)
		if ev.Usage != nil && (ev.Name == parse.HookResponse || ev.Name == parse.HookStop) {
			g.Usage = ev.Usage // the generation's counts so far: the last said wins
		}
	}
	capture := h.opts.CaptureContent
	switch {
	case ev.Name == parse.HookPrompt && g != nil && capture:
		g.Prompt += ev.Prompt
	case ev.Name == parse.HookResponse && g != nil && capture:
		g.Text += ev.Text
	case ev.Name == parse.HookThought && g != nil:
		t := HookThought{At: now.Add(-ev.Thinking), Duration: ev.Thinking, Sum: digest(ev.Text)}
		if ev.Text != "" && slices.ContainsFunc(g.Thoughts, func(o HookThought) bool { return o.Sum == t.Sum }) {
			break // the second copy of a thought recorded
		}
		if capture && !strings.HasPrefix(ev.Text, digestMark) {
			t.Text = ev.Text
		}
		g.Thoughts = append(g.Thoughts, t)
		h.cover(st, gen, t.At)
	case ev.Name == parse.HookPreCompact && ev.Compaction != nil:
		c := HookCompaction{At: now, C: *ev.Compaction}
		if st.Turn != nil {
			st.Turn.Compactions = append(st.Turn.Compactions, c)
		} else {
			st.Compactions = append(st.Compactions, c) // for the turn it comes before
		}
	case ev.StartsTool() && ev.Tool != nil:
		if closed || slices.Contains(st.Told, endedKey(ev.ToolKey)) {
			break // a turn closed is whole; a call whose span is made is not started again
		}
		if st.Tools == nil {
			st.Tools = map[string]*HookTool{}
		}
		st.Tools[ev.ToolKey] = &HookTool{Start: now, Generation: ev.GenerationID, Call: *ev.Tool}
	case ev.EndsTool() && ev.Tool != nil:
		key := shellKey(ev)
		switch {
		case slices.Contains(st.Told, endedKey(ev.ToolKey)),
			key != "" && slices.Contains(st.Told, key) && st.Tools[ev.ToolKey] == nil:
			// Told again: its span is made. (Another call of the same
			// command, started and not ended, is not told again.)
		case key != "" && ev.Name == parse.HookAfterShell && !closed:
			st.Held = &HookHeld{Key: key, At: now, Event: ev}
		default:
			if key != "" {
				h.told(st, key)
			}
			if st.Held != nil && st.Held.Key == key {
				ev.Result = cmp.Or(ev.Result, st.Held.Event.Result)
				st.Held = nil
			}
			done = append(done, h.toolDone(st, ev, now))
			if g != nil {
				g.ToolCalls++
			}
		}
	case ev.Name == parse.HookSubagentStart && !closed && !slices.Contains(st.Told, subagentKey(ev.SubagentID)):
		if st.Subagents == nil {
			st.Subagents = map[string]*HookSubagent{}
		}
		s := &HookSubagent{Start: now, Generation: gen, Type: ev.SubagentType, Task: ev.SubagentTask, Facts: ev.Subagent}
		if key := cmp.Or(ev.Subagent.ToolCallID, ev.SubagentID); st.Tools[key] != nil {
			s.Tool = key
		}
		st.Subagents[ev.SubagentID] = s
	case ev.Name == parse.HookSubagentStop && !slices.Contains(st.Told, subagentKey(ev.SubagentID)):
		done = append(done, h.subagentDone(st, ev, now))
	case ev.Name == parse.HookStop && g != nil:
		st.Turn.Failed = st.Turn.Failed || ev.Status == "error"
		done = append(done, h.generationDone(st, gen, g, now, ev.Status))
		h.closeGeneration(st, gen, g.Turn)
		if g.Turn == st.Turn.Key {
			done = append(done, h.closeTurn(st, now, TurnEndStop, "", 0)...)
		}
	case ev.Name == parse.HookSessionEnd:
		done = append(done, h.End(st, now, ev.Status, ev.Duration)...)
	}
	return done
}

// sessionLevel events belong to the conversation, not to a generation,
// whatever generation_id they carry: they start none.
func sessionLevel(event string) bool {
	return event == parse.HookSessionStart || event == parse.HookSessionEnd || event == parse.HookPreCompact
}

// maxTold bounds the shell calls a conversation remembers as told.
const maxTold = 16

// told remembers key in Told, the oldest forgotten past maxTold.
func (h *Hooks) told(st *HookState, key string) {
	st.Told = append(st.Told, key)[max(0, len(st.Told)+1-maxTold):]
}

// endedKey names in Told a tool call whose span its turn made when it
// closed before the call's end came.
func endedKey(toolKey string) string { return "ended\x00" + toolKey }

// subagentKey names in Told a subagent whose span is made.
func subagentKey(id string) string { return "subagent\x00" + id }

// shellKey names a shell call as both its end events tell it: the
// command and the duration, which they give alike; "" for anything else.
func shellKey(ev parse.HookEvent) string {
	if !ev.EndsTool() || ev.Tool == nil || ev.Tool.Name != "shell" || ev.Tool.Facts.Command == "" {
		return ""
	}
	return ev.Tool.Facts.Command + "\x00" + strconv.FormatInt(ev.Duration.Microseconds(), 10)
}

// sessionModel says an event's model is the session's: a compaction's
// and a subagent's events name their own.
func sessionModel(event string) bool {
	return event != parse.HookPreCompact && event != parse.HookSubagentStart && event != parse.HookSubagentStop
}

// generationOf is the generation an event belongs to. A thought names
// its model call: the turn's id suffixed, "<turn>-<n>-<slug>" (cursor-agent
// 2026.09) or "<turn>-<n>"; the editor sends each thought twice, under
// the turn's id and under the suffixed one. Both belong to the turn.
func generationOf(st *HookState, ev parse.HookEvent) string {
	gen := ev.GenerationID
	if ev.Name != parse.HookThought {
		return gen
	}
	if len(gen) > 37 && gen[36] == '-' && isUUID(gen[:36]) {
		return gen[:36]
	}
	if i := strings.LastIndexByte(gen, '-'); i > 0 && i < len(gen)-1 && strings.Trim(gen[i+1:], "0123456789") == "" {
		if _, closed := closedTurn(st, gen[:i]); st.Generations[gen[:i]] != nil || closed {
			return gen[:i]
		}
	}
	return gen
}

// isUUID says s is a UUID's text: 8-4-4-4-12 hexadecimal digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case !strings.ContainsRune("0123456789abcdefABCDEF", c):
			return false
		}
	}
	return true
}

// betterModel is the model to name: Cursor says "default" for whatever
// its picker chose until an event names the model that ran.
func betterModel(known string, said ...string) string {
	for _, m := range said {
		if m != "" && m != "default" && (known == "" || known == "default") {
			return m
		}
	}
	if known == "" {
		for _, m := range said {
			if m != "" {
				return m
			}
		}
	}
	return known
}

// digestMark starts a text a journal kept as its digest alone (content
// not captured): it tells a thought's second copy, and is never shown.
const digestMark = "\x00digest:"

// TextDigest is text as a journal keeps it without content capture.
func TextDigest(text string) string { return digestMark + digest(text) }

// digest tells a text from another without keeping it.
func digest(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:8])
}

// cover has the session, and the generation gen while under way, begin
// no later than start: a child's own measure of its time (a tool's
// duration, a thought's) may reach back before the first event seen.
func (h *Hooks) cover(st *HookState, gen string, start time.Time) {
	if st.Turn != nil && turnOf(st, gen) == st.Turn.Key {
		st.Turn.Start = earlier(st.Turn.Start, start)
	}
	if g := st.Generations[gen]; g != nil {
		g.Start = earlier(g.Start, start)
	}
}

// identity is what every span of a conversation says of whom it belongs
// to (see draft.withIdentity): the conversation, and the agent.
func (h *Hooks) identity(st *HookState, agent string) []attribute.KeyValue {
	return h.shaper.identity(agent, st.ConversationID)
}

func (h *Hooks) toolDone(st *HookState, ev parse.HookEvent, now time.Time) SpanRecord {
	h.told(st, endedKey(ev.ToolKey)) // its span is made: an end told again makes none
	call, gen := *ev.Tool, ev.GenerationID
	start := now
	var cover time.Time
	if t := st.Tools[ev.ToolKey]; t != nil {
		call, start, gen, cover = merge(t.Call, call), t.Start, cmp.Or(gen, t.Generation), t.Cover
		delete(st.Tools, ev.ToolKey)
	}
	if ev.Duration > 0 {
		start = now.Add(-ev.Duration) // the event's own measure wins over two processes' clocks
	}
	start = earlier(start, now) // a start told after its end (parallel hooks) is no later
	if !cover.IsZero() {
		start = earlier(start, cover) // and covers the subagent it ran
	}
	h.cover(st, gen, start)
	outcome, errType := OutcomeSuccess, ""
	switch {
	case ev.Rejected:
		outcome = OutcomeRejected
	case ev.Timeout:
		outcome, errType = OutcomeError, ErrTimeout
	case ev.Failed, call.Facts.ExitCode != nil && *call.Facts.ExitCode != 0:
		outcome = OutcomeError
	}
	return h.toolRecord(st, gen, call, ev.ToolKey, start, now, outcome, errType, ev.Failure, ev.Result)
}

// toolRecord is a tool call's span; errType is error.type for an
// outcome of error ("error" when empty).
func (h *Hooks) toolRecord(st *HookState, gen string, call parse.ToolCall, key string, start, end time.Time, outcome, errType, failure, result string) SpanRecord {
	p := h.toolDraft(call, outcome)
	p.attrs = append(p.attrs, h.identity(st, "cursor-agent")...)
	if h.opts.CaptureContent && result != "" {
		p.attrs = append(p.attrs, ToolResult.String(h.jsonText(result, h.opts.MaxContent)))
	}
	if outcome == OutcomeIncomplete {
		var incomplete []attribute.KeyValue
		incomplete, p.code, p.message = unfinished(closedOpen, "no completion before the session ended")
		p.attrs = append(p.attrs, incomplete...)
	} else {
		h.toolEnd(p, call, outcome, cmp.Or(errType, ErrTool), failure)
	}
	if !h.opts.CaptureContent {
		p.attrs = append(p.attrs, metadataView(p.attrs)...)
	}
	p.start, p.end = start, end
	r := p.record()
	r.TraceID, r.SpanID, r.Parent = turnTraceID(st.ConversationID, turnOf(st, gen)), hookSpanID(st.ConversationID, "tool", key), h.generationParent(st, gen)
	return r
}

func (h *Hooks) generationParent(st *HookState, gen string) trace.SpanID {
	if gen == "" {
		return turnRootID(st.ConversationID, turnOf(st, gen))
	}
	return hookSpanID(st.ConversationID, "generation", gen)
}

func (h *Hooks) generationDone(st *HookState, id string, g *HookGeneration, end time.Time, status string) SpanRecord {
	model := cmp.Or(g.Model, st.Model)
	p := chatDraft(h.text(model, maxMessage))
	p.attrs = append(p.attrs, GenerationID.String(h.text(id, maxMessage)))
	p.attrs = append(p.attrs, h.identity(st, "cursor-agent")...)
	if g.Usage != nil {
		// The generation's own usage, by the conventions; the session
		// keeps the sum under cursor.usage.*, so that it counts once.
		p.attrs = append(p.attrs, usageAttributes(*g.Usage)...)
		p.attrs = append(p.attrs, h.price(st, model, *g.Usage)...)
	}
	var thinking time.Duration
	var reasoning []string
	for _, t := range g.Thoughts {
		thinking += t.Duration
		ea := []attribute.KeyValue{ThinkingMs.Int64(t.Duration.Milliseconds())}
		if t.Text != "" {
			ea = append(ea, ThinkingText.String(h.text(t.Text, h.opts.MaxContent)))
			reasoning = append(reasoning, h.text(t.Text, h.opts.MaxContent))
		}
		p.addEvent(EventThinking, t.At, ea...)
	}
	if thinking > 0 {
		p.attrs = append(p.attrs, ThinkingMs.Int64(thinking.Milliseconds()))
	}
	finish := "stop"
	switch status {
	case "error":
		finish = "error"
		p.attrs = append(p.attrs, ErrorType.String(ErrAgent))
		p.code, p.message = codes.Error, "the generation ended in error"
	case "aborted", "incomplete":
		finish = status
	}
	if h.opts.CaptureContent && g.Prompt != "" {
		p.attrs = append(p.attrs, InputMessages.String(inputMessage(h.text(g.Prompt, h.opts.MaxContent))))
	}
	h.chatEnd(&p, g.ToolCalls, finish, reasoning, h.text(g.Text, h.opts.MaxContent), nil)
	p.start, p.end = g.Start, later(end, g.Last)
	r := p.record()
	r.TraceID, r.SpanID, r.Parent = turnTraceID(st.ConversationID, g.Turn), hookSpanID(st.ConversationID, "generation", id), turnRootID(st.ConversationID, g.Turn)
	return r
}

func (h *Hooks) subagentDone(st *HookState, ev parse.HookEvent, now time.Time) SpanRecord {
	s := st.Subagents[ev.SubagentID]
	if s == nil {
		s = &HookSubagent{Start: now, Generation: ev.GenerationID, Type: ev.SubagentType, Task: ev.SubagentTask}
	}
	if ev.Duration > 0 {
		s.Start = earlier(s.Start, now.Add(-ev.Duration))
	}
	s.Type, s.Task = cmp.Or(s.Type, ev.SubagentType), cmp.Or(s.Task, ev.SubagentTask)
	s.Facts = mergeSubagent(s.Facts, ev.Subagent)
	h.cover(st, s.Generation, s.Start)
	if t := st.Tools[s.Tool]; t != nil {
		t.Cover = earlier(t.Cover, s.Start)
	}
	delete(st.Subagents, ev.SubagentID)
	r := h.subagentRecord(st, ev.SubagentID, s, now)
	if status := h.text(ev.Status, maxMessage); status != "" {
		r.Attrs = append(r.Attrs, SubagentStatus.String(status))
		if status == "error" || status == "failed" {
			r.Attrs = append(r.Attrs, ErrorType.String(ErrAgent))
			r.Status, r.Message = codes.Error, "the subagent ended in error"
		}
	}
	return r
}

// mergeSubagent is what subagentStart said, with what subagentStop adds.
func mergeSubagent(start, stop parse.SubagentFacts) parse.SubagentFacts {
	start.Model = cmp.Or(start.Model, stop.Model)
	start.ParentConversationID = cmp.Or(start.ParentConversationID, stop.ParentConversationID)
	if start.ParallelWorker == nil {
		start.ParallelWorker = stop.ParallelWorker
	}
	start.MessageCount, start.ToolCallCount, start.LoopCount = stop.MessageCount, stop.ToolCallCount, stop.LoopCount
	return start
}

func (h *Hooks) subagentRecord(st *HookState, id string, s *HookSubagent, end time.Time) SpanRecord {
	h.told(st, subagentKey(id)) // a stop told again makes no second span
	typ := cmp.Or(h.text(s.Type, maxMessage), "subagent")
	attrs := h.rootAttributes(typ, said{ConversationID, st.ConversationID})
	if id != "" {
		attrs = append(attrs, AgentID.String(h.text(id, maxMessage)), SubagentID.String(h.text(id, maxMessage)))
	}
	if s.Type != "" {
		attrs = append(attrs, SubagentType.String(h.text(s.Type, maxMessage)))
	}
	if t := h.text(s.Task, maxMessage); t != "" {
		attrs = append(attrs, SubagentDescription.String(t))
	}
	f := s.Facts
	if m := h.text(f.Model, maxMessage); m != "" {
		attrs = append(attrs, SubagentModel.String(m), RequestModel.String(m))
	}
	if p := h.text(f.ParentConversationID, maxMessage); p != "" {
		attrs = append(attrs, SubagentParent.String(p))
	}
	if f.ParallelWorker != nil {
		attrs = append(attrs, SubagentParallel.Bool(*f.ParallelWorker))
	}
	for _, n := range []struct {
		key attribute.Key
		v   *int64
	}{{SubagentMessages, f.MessageCount}, {SubagentToolCalls, f.ToolCallCount}, {SubagentLoops, f.LoopCount}} {
		if n.v != nil {
			attrs = append(attrs, n.key.Int64(*n.v))
		}
	}
	parent := h.generationParent(st, s.Generation)
	if s.Tool != "" {
		parent = hookSpanID(st.ConversationID, "tool", s.Tool)
	}
	return SpanRecord{TraceID: turnTraceID(st.ConversationID, turnOf(st, s.Generation)), SpanID: hookSpanID(st.ConversationID, "subagent", id),
		Parent: parent, Name: "invoke_agent " + typ, Kind: trace.SpanKindInternal, Start: s.Start, End: end, Attrs: attrs}
}

// hookTraceID is the trace of a conversation: every hook process derives
// the same.
func hookTraceID(conversation string) trace.TraceID {
	sum := sha256.Sum256([]byte("cursor-otel trace\x00" + conversation))
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
