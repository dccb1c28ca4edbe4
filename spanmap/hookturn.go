package spanmap

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// A conversation traced through hooks is one trace per turn: a prompt and
// everything the agent did for it, whole when the turn ends. A
// conversation lasts hours and may never say that it ended; a trace that
// waited for its end would have no root until then, and a tail sampler
// would cut it.

// The ways a turn ends, as cursor.turn.end says.
const (
	TurnEndStop       = "stop"        // its stop came
	TurnEndNextPrompt = "next_prompt" // the conversation's next prompt came first
	TurnEndSession    = "session_end" // the conversation's sessionEnd came first
	TurnEndIdle       = "idle"        // nothing came for too long
)

// hookTurn is a turn being built from its events, in the order Build
// gives them: it opens at the first that belongs to a generation, and
// its spans are drafted as its calls end and when it closes.
type hookTurn struct {
	*Hooks
	st                *HookState
	key               string // the generation that opened it, or "#N"; "" until it opens
	number            int
	start, last       time.Time
	stopped           time.Time // when a generation's stop closed it
	failed, cancelled bool
	totals            *Totals // its generations' usage and cost
	compactions       []HookCompaction
	link              trace.SpanContext // the root of the turn before
	gens              map[string]*hookGeneration
	tools             map[string]*hookTool
	subagents         map[string]*hookSubagent
	shells            []parse.HookEntry // afterShellExecutions no postToolUse was paired with
	spans             []*draft
}

// hookGeneration is one generation (a model call and what it ran).
type hookGeneration struct {
	start, last  time.Time
	model        string
	prompt, text string // with content capture
	thoughts     []hookThought
	toolCalls    int
	usage        *parse.Usage
	status       string // its stop's
	stopped      bool
}

// hookThought is a thinking block.
type hookThought struct {
	at       time.Time
	duration time.Duration
	text     string // with content capture
	sum      string // the text's digest, which tells a second copy
}

// hookTool is a tool call started and not done.
type hookTool struct {
	start, cover time.Time // cover: the earliest start of a subagent it ran
	gen          string
	call         parse.ToolCall
}

// hookSubagent is a subagent started and not stopped.
type hookSubagent struct {
	start     time.Time
	gen       string
	typ, task string
	facts     parse.SubagentFacts
	tool      string // the task tool call's key, when its start was seen: the subagent goes under it
}

func (h *Hooks) newTurn(st *HookState) *hookTurn {
	return &hookTurn{Hooks: h, st: st, gens: map[string]*hookGeneration{}, tools: map[string]*hookTool{}, subagents: map[string]*hookSubagent{}}
}

// open opens the turn, keyed by gen, at now, unless it is open.
func (t *hookTurn) open(gen string, now time.Time) {
	if t.key != "" {
		return
	}
	t.st.Turns++
	t.number, t.key, t.start, t.last = t.st.Turns, cmp.Or(gen, "#"+strconv.Itoa(t.st.Turns)), now, now
	t.link, t.compactions, t.st.Compactions = t.lastRoot(), t.st.Compactions, nil
}

// lastRoot is the root of the conversation's last turn, for a new turn
// to link to: whoever traced it (a wrapped run, ACP, hooks in another
// state) when Options.Turns knows it, else the last this state closed.
func (t *hookTurn) lastRoot() trace.SpanContext {
	if last, ok := t.lastTurn(t.st.ConversationID); ok {
		return trace.NewSpanContext(trace.SpanContextConfig{TraceID: last.TraceID(), SpanID: last.SpanID(), TraceFlags: trace.FlagsSampled, Remote: true})
	}
	return t.st.Root.SpanContext()
}

// add puts the event ev, at now, in the turn.
func (t *hookTurn) add(ev parse.HookEvent, now time.Time) {
	st := t.st
	model := st.see(ev, now)
	if !t.stopped.IsZero() {
		return // a stop told again
	}
	gen := t.generationOf(ev)
	_, closed := st.closedTurn(gen)
	var g *hookGeneration
	if !ev.SessionLevel() && !closed {
		t.open(gen, now)
		t.start, t.last = earlier(t.start, now), later(t.last, now)
		if gen != "" {
			if g = t.gens[gen]; g == nil {
				g = &hookGeneration{start: now}
				t.gens[gen] = g
			}
			g.start, g.last, g.model = earlier(g.start, now), later(g.last, now), parse.BetterModel(g.model, ev.ModelID, model)
			if ev.Usage != nil && (ev.Name == parse.HookResponse || ev.Name == parse.HookStop) {
				g.usage = ev.Usage // the generation's counts so far: the last said wins
			}
		}
	}
	capture := t.opts.CaptureContent
	switch {
	case ev.Name == parse.HookPrompt && g != nil && capture:
		g.prompt += ev.Prompt
	case ev.Name == parse.HookResponse && g != nil && capture:
		g.text += ev.Text
	case ev.Name == parse.HookThought && g != nil:
		th := hookThought{at: now.Add(-ev.Thinking), duration: ev.Thinking, sum: parse.TextDigest(ev.Text)}
		if ev.Text != "" && slices.ContainsFunc(g.thoughts, func(o hookThought) bool { return o.sum == th.sum }) {
			break // the second copy of a thought recorded
		}
		if capture && !parse.IsTextDigest(ev.Text) {
			th.text = ev.Text
		}
		g.thoughts = append(g.thoughts, th)
		t.cover(gen, th.at)
	case ev.Name == parse.HookPreCompact && ev.Compaction != nil:
		c := HookCompaction{At: now, C: *ev.Compaction}
		if t.key != "" {
			t.compactions = append(t.compactions, c)
		} else {
			st.Compactions = append(st.Compactions, c) // for the turn it comes before
		}
	case ev.StartsTool() && ev.Tool != nil:
		if !closed && !slices.Contains(st.Spanned, endedKey(ev.ToolKey)) { // a call whose span is made is not started again
			t.tools[ev.ToolKey] = &hookTool{start: now, gen: ev.GenerationID, call: *ev.Tool}
		}
	case ev.EndsTool() && ev.Tool != nil:
		key := ev.ShellKey()
		switch {
		case slices.Contains(st.Spanned, endedKey(ev.ToolKey)),
			key != "" && slices.Contains(st.Spanned, key) && t.tools[ev.ToolKey] == nil:
			// Told again: its span is made already. (Another call of the same
			// command, started and not ended, is not told again.)
		case key != "" && ev.Name == parse.HookAfterShell && !closed:
			t.shells = append(t.shells, parse.HookEntry{At: now, Event: ev}) // its postToolUse may tell it yet
		default:
			if key != "" {
				st.markSpanned(key)
			}
			t.toolDone(ev, now)
		}
	case ev.Name == parse.HookSubagentStart && !closed && !slices.Contains(st.Spanned, subagentKey(ev.SubagentID)):
		s := &hookSubagent{start: now, gen: gen, typ: ev.SubagentType, task: ev.SubagentTask, facts: ev.Subagent}
		if key := cmp.Or(ev.Subagent.ToolCallID, ev.SubagentID); t.tools[key] != nil {
			s.tool = key
		}
		t.subagents[ev.SubagentID] = s
	case ev.Name == parse.HookSubagentStop && !slices.Contains(st.Spanned, subagentKey(ev.SubagentID)):
		t.subagentDone(ev, now)
	case ev.Name == parse.HookStop && g != nil:
		t.failed = t.failed || ev.Status == "error"
		t.cancelled = t.cancelled || ev.Status == stopAborted
		g.status, g.stopped, t.stopped = ev.Status, true, now
	case ev.Name == parse.HookStop:
		t.cancelled = t.cancelled || ev.Status == stopAborted
	}
}

// generationOf is the generation an event belongs to. A thought names
// its model call: the turn's id suffixed, "<turn>-<n>-<slug>" (cursor-agent
// 2026.09) or "<turn>-<n>"; the editor sends each thought twice, under
// the turn's id and under the suffixed one. Both belong to the turn.
func (t *hookTurn) generationOf(ev parse.HookEvent) string {
	gen := ev.TurnGeneration()
	if ev.Name != parse.HookThought || gen != ev.GenerationID {
		return gen
	}
	if i := strings.LastIndexByte(gen, '-'); i > 0 && i < len(gen)-1 && strings.Trim(gen[i+1:], "0123456789") == "" {
		if _, closed := t.st.closedTurn(gen[:i]); t.gens[gen[:i]] != nil || closed {
			return gen[:i]
		}
	}
	return gen
}

// cover has the turn, and the generation gen, begin no later than start:
// a child's own measure of its time (a tool's duration, a thought's) may
// reach back before the first event seen.
func (t *hookTurn) cover(gen string, start time.Time) {
	t.start = earlier(t.start, start)
	if g := t.gens[gen]; g != nil {
		g.start = earlier(g.start, start)
	}
}

// close closes the turn at end, with everything still open in it, and
// drafts its root. how says what closed it; ending is the conversation's
// end it carries, if any.
func (t *hookTurn) close(end time.Time, how string, ending *parse.HookEntry) {
	st := t.st
	if ending != nil && ending.Event.Duration > 0 && t.number == 1 {
		// The conversation's only turn covers what it says it lasted
		// (a headless run fires no prompt hook: its turn starts late).
		t.start = earlier(t.start, ending.At.Add(-ending.Event.Duration))
	}
	for _, s := range t.shells {
		if key := s.Event.ShellKey(); !slices.Contains(st.Spanned, key) && !slices.Contains(st.Spanned, endedKey(s.Event.ToolKey)) {
			st.markSpanned(key) // no postToolUse told it: it makes the span, once
			t.toolDone(s.Event, s.At)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(t.tools)) {
		tool := t.tools[key]
		t.tool(tool.gen, tool.call, key, tool.start, later(end, tool.start), OutcomeIncomplete, "", "", "")
		st.markSpanned(endedKey(key))
	}
	for _, id := range slices.Sorted(maps.Keys(t.subagents)) {
		s := t.subagents[id]
		t.subagent(id, s, later(end, s.start))
	}
	for _, id := range slices.Sorted(maps.Keys(t.gens)) {
		t.generation(id, t.gens[id], end)
		st.Closed = append(st.Closed, HookClosed{Generation: id, Turn: t.key})
		st.Closed = st.Closed[max(0, len(st.Closed)-maxClosed):]
	}
	r := t.root(end, how, ending)
	st.Root = &HookRoot{TraceID: r.sc.TraceID().String(), SpanID: r.sc.SpanID().String()}
	t.setLastTurn(st.ConversationID, st.Root.SpanContext())
}

// HookSessionEnd is what a sessionEnd said of its conversation when no
// turn was left to carry it.
type HookSessionEnd struct {
	ConversationID string
	At             time.Time
	Reason         string
	Duration       time.Duration // what the conversation lasted, as it said; 0 when it did not
	Turns          int
	LastTrace      string // the trace of the conversation's last turn; "" for none
}

// said is a sessionEnd that came with no turn to carry it. It makes no
// span: a span of its own would be the root of a trace that a backend's
// trace list shows as one more turn, and a span in the last turn's trace
// would stretch that turn to the conversation's end, after a tail
// sampler decided it. Its facts are for the reports; false when an end
// was said already, and no turn since.
func (h *Hooks) said(st *HookState, e parse.HookEntry) (HookSessionEnd, bool) {
	st.see(e.Event, e.At)
	if st.Ended == st.Turns+1 {
		return HookSessionEnd{}, false
	}
	st.Ended = st.Turns + 1
	s := HookSessionEnd{ConversationID: st.ConversationID, At: e.At, Reason: h.text(e.Event.Status, maxMessage), Duration: e.Event.Duration, Turns: st.Turns}
	if st.Root != nil {
		s.LastTrace = st.Root.TraceID
	}
	return s, true
}
