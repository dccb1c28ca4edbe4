package summary

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

// Team is what a lead's metrics read of a session beside the rest of its
// report: the lines its edits changed, the tool calls put to the person
// and decided, its waits on the person, and its cost in any currency.
type Team struct {
	Lines     []Lines
	Decisions []Decision
	Waits     []Wait
	// ActiveMs is the session's wall time less the time it waited on the
	// person (the union of its waits, within the session).
	ActiveMs int64
	// Cost is the session's cost in Currency: cursor-otel's USD estimate,
	// or an agent's own in the currency it gave.
	Cost     *float64
	Currency string
	Client   string // the editor that spoke to an ACP agent (initialize's clientInfo)
	Cwd      string // the session's work directory (cursor.cwd), for its repository
	// Source is where the spans came from: stream, hooks or acp.
	Source string
}

// Lines are the lines one tool call's edit added and removed.
type Lines struct {
	Tool           string
	Added, Removed int64
}

// Decision is a tool call put to the person (or a hook) and decided.
type Decision struct {
	Tool   string // "" when the source named none
	Accept bool
}

// Wait is one wait on the person, from request to answer.
type Wait struct {
	Kind     string // permission, question, plan, elicitation
	Duration time.Duration
}

// waitKinds names a wait by its span's name (a wait is no GenAI
// operation: it has no gen_ai.operation.name).
var waitKinds = map[string]string{
	spanmap.OpRequestPermission: parse.WaitPermission,
	"cursor/ask_question":       parse.WaitQuestion,
	"elicitation/create":        parse.WaitElicitation,
}

// waitKind is what a wait asks: a plan to approve is a request_permission
// span as every approval is, told apart by what asked it (ACP's
// cursor/create_plan, the stream's createPlanRequestQuery).
func waitKind(s sdktrace.ReadOnlySpan) string {
	a := s.Attributes()
	kind := waitKinds[s.Name()]
	if kind == parse.WaitPermission && (spanmap.Value(a, spanmap.RPCMethod).AsString() == "cursor/create_plan" ||
		spanmap.Value(a, spanmap.InteractionKind).AsString() == "createPlanRequestQuery") {
		return parse.WaitPlan
	}
	return kind
}

// teamOf reads the team's facts from a session's spans.
func teamOf(session sdktrace.ReadOnlySpan, spans []sdktrace.ReadOnlySpan) Team {
	attrs := session.Attributes()
	t := Team{
		Cost:     floatPtr(spanmap.Value(attrs, spanmap.CostUSD)),
		Currency: cmp.Or(spanmap.Value(attrs, spanmap.CostCurrency).AsString(), "USD"),
		Client:   spanmap.Value(attrs, spanmap.ACPClientName).AsString(),
		Cwd:      spanmap.Value(attrs, spanmap.Cwd).AsString(),
		Source:   sourceOf(attrs),
	}
	tools := map[trace.SpanID]string{}
	for _, s := range spans {
		a := s.Attributes()
		if spanmap.Value(a, spanmap.OperationName).AsString() == spanmap.OpExecuteTool {
			if name := spanmap.Value(a, spanmap.ToolName).AsString(); name != "" {
				tools[s.SpanContext().SpanID()] = name
			}
		}
	}
	decided := map[trace.SpanID]bool{}
	edits := map[editKey]bool{}
	var waits []interval
	for _, s := range spans {
		a := s.Attributes()
		op := spanmap.Value(a, spanmap.OperationName).AsString()
		switch {
		case spanmap.Value(a, spanmap.Wait).AsBool():
			kind := waitKind(s)
			if kind == "" {
				continue
			}
			t.Waits = append(t.Waits, Wait{Kind: kind, Duration: s.EndTime().Sub(s.StartTime())})
			waits = append(waits, clip(interval{s.StartTime(), s.EndTime()}, session))
			if kind != "permission" {
				continue
			}
			var accept bool
			switch spanmap.Value(a, spanmap.InteractionOutcome).AsString() {
			case "approved":
				accept = true
			case "rejected":
			default:
				continue // cancelled, or never answered: not decided
			}
			tool, under := tools[s.Parent().SpanID()]
			if under {
				if decided[s.Parent().SpanID()] {
					continue // one decision per tool call, however often asked
				}
				decided[s.Parent().SpanID()] = true
			}
			t.Decisions = append(t.Decisions, Decision{Tool: tool, Accept: accept})
		case op == spanmap.OpExecuteTool && tools[s.SpanContext().SpanID()] != "":
			n := len(t.Lines)
			t.Lines = appendLines(t.Lines, tools[s.SpanContext().SpanID()], a)
			if n < len(t.Lines) && t.Source == "hooks" {
				// The hooks may tell one edit twice (afterFileEdit, its
				// path absolute, and the edit tool's postToolUse, its
				// path as the model wrote it): the same file name and
				// lines count once.
				key := editKey{fileName(spanmap.Value(a, spanmap.ToolPath).AsString()), t.Lines[n]}
				if edits[key] {
					t.Lines = t.Lines[:n]
				}
				edits[key] = true
			}
		}
	}
	// A rejection the stream or a hook told on the tool call itself, with
	// no answered wait under it.
	for _, s := range spans {
		id := s.SpanContext().SpanID()
		if name := tools[id]; name != "" && !decided[id] &&
			spanmap.Value(s.Attributes(), spanmap.ToolOutcome).AsString() == spanmap.OutcomeRejected {
			t.Decisions = append(t.Decisions, Decision{Tool: name})
		}
	}
	slices.SortFunc(waits, func(a, b interval) int { return a.start.Compare(b.start) })
	wall := session.EndTime().Sub(session.StartTime())
	t.ActiveMs = ms(max(wall-union(waits), 0))
	return t
}

// appendLines appends a tool call's changed lines, if it says any: the
// added and removed lines an edit reports, or the lines a write created.
func appendLines(lines []Lines, tool string, a []attribute.KeyValue) []Lines {
	added, removed := spanmap.Value(a, spanmap.ToolLinesAdded), spanmap.Value(a, spanmap.ToolLinesRemove)
	if added.Type() != attribute.INT64 && removed.Type() != attribute.INT64 {
		if tool != "write" {
			return lines
		}
		added = spanmap.Value(a, spanmap.ToolLines)
	}
	l := Lines{Tool: tool, Added: max(added.AsInt64(), 0), Removed: max(removed.AsInt64(), 0)}
	if l.Added == 0 && l.Removed == 0 {
		return lines
	}
	return append(lines, l)
}

// editKey is an edit as the hooks may tell it twice.
type editKey struct {
	file  string
	lines Lines
}

// fileName is a path's last element, whichever separator it uses.
func fileName(path string) string {
	return path[strings.LastIndexAny(path, `/\`)+1:]
}

// clip is iv within the session's span.
func clip(iv interval, session sdktrace.ReadOnlySpan) interval {
	if iv.start.Before(session.StartTime()) {
		iv.start = session.StartTime()
	}
	if iv.end.After(session.EndTime()) {
		iv.end = session.EndTime()
	}
	if iv.end.Before(iv.start) {
		iv.end = iv.start
	}
	return iv
}

// sourceOf says where a session's spans came from, as its turns say
// (cursor.source); a turn from a version that said so only for the hooks
// is an ACP editor's when it names the protocol or its parties, else a
// stream's.
func sourceOf(attrs []attribute.KeyValue) string {
	switch source := spanmap.Value(attrs, spanmap.Source).AsString(); {
	case source != "":
		return source
	case spanmap.Value(attrs, spanmap.ACPProtocolVersion).Type() != attribute.EMPTY,
		spanmap.Value(attrs, spanmap.ACPClientName).Type() != attribute.EMPTY,
		spanmap.Value(attrs, spanmap.ACPAgentName).Type() != attribute.EMPTY:
		return "acp"
	}
	return "stream"
}
