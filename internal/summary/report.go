// Package summary works out where a run's time went, from the spans of its
// trace, and writes it as Markdown for a CI page and JSON for scripts. Its
// figures are those of the spans: per-kind totals are sums of span
// durations, and the wall time is split by the union of intervals, so that
// tools running in parallel are not counted twice.
package summary

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/spanmap"
)

// Report is what the summary of one session says. Times are milliseconds.
type Report struct {
	TraceID   string    `json:"trace_id"`
	TraceURL  string    `json:"trace_url,omitempty"`
	SessionID string    `json:"session_id,omitempty"`
	Model     string    `json:"model,omitempty"`
	Outcome   string    `json:"outcome"` // success or error
	Error     string    `json:"error,omitempty"`
	ErrorType string    `json:"error_type,omitempty"` // why it failed: agent_error, exit_status, budget_exceeded, …
	ExitCode  *int64    `json:"exit_code,omitempty"`
	Start     time.Time `json:"start"`
	WallMs    int64     `json:"wall_ms"`
	Split     Split     `json:"split"`
	Tokens    *Tokens   `json:"tokens,omitempty"`
	Retries   int       `json:"retries"`
	// The cost, estimated from the tokens: none when the stream reported
	// no usage; Pricing is the table it came from, or "unpriced".
	CostUSD   *float64 `json:"cost_usd,omitempty"`
	Pricing   string   `json:"pricing,omitempty"`
	PricedAs  string   `json:"priced_as,omitempty"`
	BudgetUSD *float64 `json:"budget_usd,omitempty"`

	// Stalls are the gaps without output from the agent longer than the
	// stall threshold; StallTimeoutMs is set when cursor-otel stopped the
	// agent for one (--stall-timeout).
	Stalls         []Stall `json:"stalls,omitempty"`
	StallTimeoutMs int64   `json:"stall_timeout_ms,omitempty"`

	ModelCalls []ModelCall `json:"model_calls"`
	ToolKinds  []ToolKind  `json:"tool_kinds"`
	Slowest    []ToolCall  `json:"slowest_tool_calls"`
	Failed     []ToolCall  `json:"failed_tool_calls"`
	ToolCalls  []ToolCall  `json:"-"` // every tool call: the waterfall's, the metrics'; the JSON has the slowest and the failed

	Team Team `json:"-"` // what the team metrics read beside the rest
}

// Split divides the wall time: ModelMs + ToolsMs + IdleMs = WallMs. Model
// time is time inside a model call and outside every tool call (waiting for
// the model, its thinking among it); tool time is time inside at least one
// tool call; idle is the rest (start-up, reconnects between calls).
// ThinkingMs and ReconnectingMs are parts of those, for information.
type Split struct {
	ModelMs        int64 `json:"model_ms"`
	ThinkingMs     int64 `json:"thinking_ms"`
	ToolsMs        int64 `json:"tools_ms"`
	IdleMs         int64 `json:"idle_ms"`
	ReconnectingMs int64 `json:"reconnecting_ms"`
}

// Tokens is the usage the result reported. Input counts the cached
// tokens too, as the semantic conventions do.
type Tokens struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheRead     int64 `json:"cache_read"`
	CacheCreation int64 `json:"cache_creation"`
}

// Stall is one gap without output.
type Stall struct {
	StartMs    int64  `json:"start_ms"` // from the session's start
	DurationMs int64  `json:"duration_ms"`
	InFlight   string `json:"in_flight"` // what the agent was busy with
}

// ModelCall is one model call.
type ModelCall struct {
	ID           string `json:"id,omitempty"`
	StartMs      int64  `json:"start_ms"` // from the session's start
	DurationMs   int64  `json:"duration_ms"`
	FirstTokenMs *int64 `json:"time_to_first_token_ms,omitempty"`
	ThinkingMs   int64  `json:"thinking_ms"`
	ToolCalls    int    `json:"tool_calls"`
	Error        string `json:"error,omitempty"`
	ErrorType    string `json:"error_type,omitempty"`
	Model        string `json:"-"` // the model it asked, for the chart
	Subagent     bool   `json:"-"` // a subagent's model call, not the session's own
}

// ToolKind is every call of one tool.
type ToolKind struct {
	Name    string `json:"name"`
	Count   int    `json:"count"`
	TotalMs int64  `json:"total_ms"`
	P50Ms   int64  `json:"p50_ms"`
	MaxMs   int64  `json:"max_ms"`
}

// ToolCall is one tool call.
type ToolCall struct {
	Name       string `json:"name"`
	Subject    string `json:"subject,omitempty"` // the command, path or pattern
	Outcome    string `json:"outcome"`
	Error      string `json:"error,omitempty"`
	ExitCode   *int64 `json:"exit_code,omitempty"`
	StartMs    int64  `json:"start_ms"`
	DurationMs int64  `json:"duration_ms"`
	// ModelCall is the index in ModelCalls of the model call that issued
	// it, -1 for none: the chart draws a tool under its model call.
	ModelCall int `json:"-"`
	// ErrorType is the span's error.type (error, timeout, incomplete),
	// "" for a call that did not fail (a rejection is a decision).
	ErrorType string `json:"-"`
}

// slowest is how many tool calls the report names as the slowest.
const slowest = 5

// Traces is spans grouped by trace, each trace's spans in the order given,
// the traces in the order they first appear: what FromTrace takes, one
// session at a time.
func Traces(spans []sdktrace.ReadOnlySpan) [][]sdktrace.ReadOnlySpan {
	index := map[trace.TraceID]int{}
	var out [][]sdktrace.ReadOnlySpan
	for _, s := range spans {
		id := s.SpanContext().TraceID()
		i, ok := index[id]
		if !ok {
			i = len(out)
			index[id] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], s)
	}
	return out
}

// FromTrace makes the report of the session whose spans are given; false
// when they hold no session span.
func FromTrace(spans []sdktrace.ReadOnlySpan) (Report, bool) {
	var session sdktrace.ReadOnlySpan
	chats, tools := make([]sdktrace.ReadOnlySpan, 0, len(spans)), make([]sdktrace.ReadOnlySpan, 0, len(spans))
	var inTrace map[trace.SpanID]bool // made when a session's name does not say
	for _, s := range spans {
		switch spanmap.Value(s.Attributes(), spanmap.OperationName).AsString() {
		case spanmap.OpInvokeAgent:
			// The session: not a subagent's (under a span of the trace);
			// an ACP agent names its own (invoke_agent {agent}).
			root := s.Name() == spanmap.RootName
			if !root && inTrace == nil {
				inTrace = make(map[trace.SpanID]bool, len(spans))
				for _, s := range spans {
					inTrace[s.SpanContext().SpanID()] = true
				}
			}
			root = root || !inTrace[s.Parent().SpanID()]
			if root {
				session = s
			}
		case spanmap.OpChat:
			chats = append(chats, s)
		case spanmap.OpExecuteTool:
			// A tool call (an ACP agent's request of the editor is a
			// JSON-RPC span, no execute_tool).
			tools = append(tools, s)
		}
	}
	if session == nil {
		return Report{}, false
	}
	byStart := func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) }
	slices.SortFunc(chats, byStart)
	slices.SortFunc(tools, byStart)

	origin := session.StartTime()
	attrs := session.Attributes()
	r := Report{
		TraceID:   session.SpanContext().TraceID().String(),
		SessionID: spanmap.Value(attrs, spanmap.ConversationID).AsString(),
		Model:     spanmap.Value(attrs, spanmap.RequestModel).AsString(),
		Outcome:   "success",
		ExitCode:  intPtr(spanmap.Value(attrs, spanmap.ExitCode)),
		Start:     origin,
		WallMs:    ms(session.EndTime().Sub(origin)),
	}
	if st := session.Status(); st.Code == codes.Error {
		r.Outcome, r.Error = "error", st.Description
		r.ErrorType = spanmap.Value(attrs, spanmap.ErrorType).AsString()
	}
	if in := spanmap.Value(attrs, spanmap.TotalInputTokens); in.Type() == attribute.INT64 {
		r.Tokens = &Tokens{
			Input: in.AsInt64(), Output: spanmap.Value(attrs, spanmap.TotalOutputTokens).AsInt64(),
			CacheRead:     spanmap.Value(attrs, spanmap.TotalCacheReadTokens).AsInt64(),
			CacheCreation: spanmap.Value(attrs, spanmap.TotalCacheWriteTokens).AsInt64(),
		}
	}

	r.CostUSD = floatPtr(spanmap.Value(attrs, spanmap.CostUSD))
	if c := spanmap.Value(attrs, spanmap.CostCurrency).AsString(); c != "" && c != "USD" {
		r.CostUSD = nil // an agent's cost in its own currency is no US dollar figure
	}
	r.Pricing = spanmap.Value(attrs, spanmap.CostPricing).AsString()
	r.PricedAs = spanmap.Value(attrs, spanmap.CostModel).AsString()
	r.BudgetUSD = floatPtr(spanmap.Value(attrs, spanmap.CostBudget))

	chatSpans, toolSpans := make([]interval, 0, len(chats)), make([]interval, 0, len(tools))
	r.ModelCalls, r.ToolCalls = make([]ModelCall, 0, len(chats)), make([]ToolCall, 0, len(tools))
	chatIndex := make(map[trace.SpanID]int, len(chats))
	for i, c := range chats {
		a := c.Attributes()
		mc := ModelCall{
			ID:      spanmap.Value(a, spanmap.ModelCallID).AsString(),
			StartMs: ms(c.StartTime().Sub(origin)), DurationMs: ms(c.EndTime().Sub(c.StartTime())),
			FirstTokenMs: intPtr(spanmap.Value(a, spanmap.FirstTokenMs)),
			ThinkingMs:   spanmap.Value(a, spanmap.ThinkingMs).AsInt64(),
			ToolCalls:    int(spanmap.Value(a, spanmap.ToolCalls).AsInt64()),
			Model:        spanmap.Value(a, spanmap.RequestModel).AsString(),
			Subagent:     c.Parent().SpanID() != session.SpanContext().SpanID(),
		}
		chatIndex[c.SpanContext().SpanID()] = i
		if c.Status().Code == codes.Error {
			mc.Error = c.Status().Description
			mc.ErrorType = cmp.Or(spanmap.Value(a, spanmap.ErrorType).AsString(), "error")
		}
		r.ModelCalls = append(r.ModelCalls, mc)
		r.Split.ThinkingMs += mc.ThinkingMs
		chatSpans = append(chatSpans, interval{c.StartTime(), c.EndTime()})
	}
	kinds := map[string][]int64{}
	for _, t := range tools {
		a := t.Attributes()
		call := ToolCall{
			Name: spanmap.Value(a, spanmap.ToolName).AsString(), Subject: spanmap.ToolSubject(a),
			Outcome:  spanmap.Value(a, spanmap.ToolOutcome).AsString(),
			Error:    cmp.Or(spanmap.Value(a, spanmap.ToolError).AsString(), t.Status().Description),
			ExitCode: intPtr(spanmap.Value(a, spanmap.ToolExitCode)),
			StartMs:  ms(t.StartTime().Sub(origin)), DurationMs: ms(t.EndTime().Sub(t.StartTime())),
			ModelCall: -1,
			ErrorType: spanmap.Value(a, spanmap.ErrorType).AsString(),
		}
		if i, ok := chatIndex[t.Parent().SpanID()]; ok {
			call.ModelCall = i
		}
		if call.Outcome == spanmap.OutcomeSuccess {
			call.Error = ""
		}
		r.ToolCalls = append(r.ToolCalls, call)
		kinds[call.Name] = append(kinds[call.Name], call.DurationMs)
		toolSpans = append(toolSpans, interval{t.StartTime(), t.EndTime()})
		if call.Outcome != spanmap.OutcomeSuccess {
			r.Failed = append(r.Failed, call)
		}
	}
	for name, ds := range kinds {
		slices.Sort(ds)
		k := ToolKind{Name: name, Count: len(ds), P50Ms: ds[(len(ds)-1)/2], MaxMs: ds[len(ds)-1]}
		for _, d := range ds {
			k.TotalMs += d
		}
		r.ToolKinds = append(r.ToolKinds, k)
	}
	slices.SortFunc(r.ToolKinds, func(a, b ToolKind) int {
		return cmp.Or(cmp.Compare(b.TotalMs, a.TotalMs), strings.Compare(a.Name, b.Name))
	})
	r.Slowest = slowestOf(r.ToolCalls)

	// The split, rounded so that its parts add up to the wall time exactly.
	busy := ms(union(merged(chatSpans, toolSpans)))
	r.Split.ToolsMs = ms(union(toolSpans))
	r.Split.ModelMs = busy - r.Split.ToolsMs
	r.Split.IdleMs = r.WallMs - busy
	r.Split.ReconnectingMs, r.Retries = reconnects(session)
	for _, e := range session.Events() {
		if e.Name == spanmap.EventStall {
			r.Stalls = append(r.Stalls, Stall{StartMs: ms(e.Time.Sub(origin)),
				DurationMs: spanmap.Value(e.Attributes, spanmap.StallDurationMs).AsInt64(),
				InFlight:   spanmap.Value(e.Attributes, spanmap.StallInFlight).AsString()})
		}
	}
	r.StallTimeoutMs = spanmap.Value(attrs, spanmap.StallTimeout).AsInt64()
	r.Team = teamOf(session, spans)
	return r, true
}

// reconnects sums the time from each reconnecting event to the next
// reconnected one (or the session's end), and counts retries.
func reconnects(session sdktrace.ReadOnlySpan) (reconnecting int64, retries int) {
	var since time.Time
	var total time.Duration
	for _, e := range session.Events() {
		switch e.Name {
		case spanmap.EventConnection:
			sub := spanmap.Value(e.Attributes, spanmap.EventSubtype).AsString()
			if sub == "reconnecting" && since.IsZero() {
				since = e.Time
			} else if sub != "reconnecting" && !since.IsZero() {
				total += e.Time.Sub(since)
				since = time.Time{}
			}
		case spanmap.EventRetry:
			retries++
		}
	}
	if !since.IsZero() {
		total += session.EndTime().Sub(since)
	}
	return ms(total), retries
}

type interval struct{ start, end time.Time }

// merged is a and b, each in the order of their starts, in that order.
func merged(a, b []interval) []interval {
	out := make([]interval, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if b[0].start.Before(a[0].start) {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
}

// slowestOf is the slowest tool calls, at most slowest of them, the
// slowest first, in their order among calls as long.
func slowestOf(calls []ToolCall) []ToolCall {
	out := make([]ToolCall, 0, slowest)
	for _, c := range calls {
		i := len(out)
		for i > 0 && out[i-1].DurationMs < c.DurationMs {
			i--
		}
		if i == slowest {
			continue
		}
		if len(out) < slowest {
			out = append(out, ToolCall{})
		}
		copy(out[i+1:], out[i:])
		out[i] = c
	}
	return out
}

// union is the time covered by at least one of the intervals, which are
// in the order of their starts.
func union(iv []interval) time.Duration {
	var total time.Duration
	var cur interval
	for i, v := range iv {
		switch {
		case i == 0:
			cur = v
		case !v.start.After(cur.end):
			if v.end.After(cur.end) {
				cur.end = v.end
			}
		default:
			total += cur.end.Sub(cur.start)
			cur = v
		}
	}
	if len(iv) > 0 {
		total += cur.end.Sub(cur.start)
	}
	return total
}

func ms(d time.Duration) int64 { return d.Round(time.Millisecond).Milliseconds() }

func intPtr(v attribute.Value) *int64 {
	if v.Type() != attribute.INT64 {
		return nil
	}
	n := v.AsInt64()
	return &n
}

func floatPtr(v attribute.Value) *float64 {
	if v.Type() != attribute.FLOAT64 {
		return nil
	}
	f := v.AsFloat64()
	return &f
}
