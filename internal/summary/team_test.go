package summary

import (
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/spanmap"
)

// span is a finished span of the test's trace.
func span(id, parent byte, name string, start, end time.Duration, attrs ...attribute.KeyValue) sdktrace.ReadOnlySpan {
	origin := time.Unix(1790000000, 0)
	tid := trace.TraceID{1}
	stub := tracetest.SpanStub{
		Name:        name,
		SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{id}}),
		StartTime:   origin.Add(start), EndTime: origin.Add(end), Attributes: attrs,
	}
	if parent != 0 {
		stub.Parent = trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{parent}})
	}
	return stub.Snapshot()
}

func tool(id byte, name string, start, end time.Duration, attrs ...attribute.KeyValue) sdktrace.ReadOnlySpan {
	return span(id, 1, "execute_tool "+name, start, end, append(attrs, spanmap.OperationName.String(spanmap.OpExecuteTool), spanmap.ToolName.String(name))...)
}

func wait(id, parent byte, name, outcome string, start, end time.Duration, attrs ...attribute.KeyValue) sdktrace.ReadOnlySpan {
	return span(id, parent, name, start, end, append(attrs, spanmap.Wait.Bool(true), spanmap.InteractionOutcome.String(outcome))...)
}

// A hooks turn: an edit told twice counts once; a permission answered
// decides its tool call once, however often asked; a rejection without
// an answered question is one; the active time is the turn less the
// union of its waits.
func TestTeam(t *testing.T) {
	s := time.Second
	spans := []sdktrace.ReadOnlySpan{
		tool(2, "edit", 1*s, 2*s, spanmap.ToolPath.String("/w/a.go"), spanmap.ToolLinesAdded.Int64(3), spanmap.ToolLinesRemove.Int64(1)),
		tool(3, "edit", 1*s, 2*s, spanmap.ToolPath.String("a.go"), spanmap.ToolLinesAdded.Int64(3), spanmap.ToolLinesRemove.Int64(1)),
		tool(4, "write", 2*s, 3*s, spanmap.ToolPath.String("/w/b.go"), spanmap.ToolLines.Int64(5)),
		tool(5, "shell", 3*s, 6*s, spanmap.ToolOutcome.String(spanmap.OutcomeRejected)),
		wait(6, 5, spanmap.OpRequestPermission, "rejected", 3*s, 4*s),
		wait(7, 5, spanmap.OpRequestPermission, "rejected", 4*s, 5*s),
		tool(8, "shell", 6*s, 7*s, spanmap.ToolOutcome.String(spanmap.OutcomeRejected)),
		tool(9, "edit", 7*s, 8*s),
		wait(10, 9, spanmap.OpRequestPermission, "approved", 7*s, 7500*time.Millisecond),
		wait(11, 1, "cursor/ask_question", "answered", 7200*time.Millisecond, 7800*time.Millisecond),
		wait(12, 1, spanmap.OpRequestPermission, "cancelled", 8*s, 9*s),
		span(1, 0, spanmap.RootName, 0, 10*s, spanmap.OperationName.String(spanmap.OpInvokeAgent), spanmap.Source.String("hooks"),
			spanmap.CostUSD.Float64(0.5), spanmap.CostCurrency.String("EUR")),
	}
	r, ok := FromTrace(spans)
	if !ok {
		t.Fatal("no session")
	}
	team := r.Team
	var added, removed int64
	for _, l := range team.Lines {
		added, removed = added+l.Added, removed+l.Removed
	}
	if added != 8 || removed != 1 {
		t.Errorf("lines +%d -%d, want +8 -1 (the edit told twice once, the write's 5): %+v", added, removed, team.Lines)
	}
	want := map[Decision]int{{Tool: "shell"}: 2, {Tool: "edit", Accept: true}: 1}
	got := map[Decision]int{}
	for _, d := range team.Decisions {
		got[d]++
	}
	if len(got) != len(want) || got[Decision{Tool: "shell"}] != 2 || got[Decision{Tool: "edit", Accept: true}] != 1 {
		t.Errorf("decisions %+v, want %v", team.Decisions, want)
	}
	if len(team.Waits) != 5 || team.Waits[0].Kind != "permission" || team.Waits[3].Kind != "question" {
		t.Errorf("waits %+v", team.Waits)
	}
	// Waits cover 3-5 s, 7-7.8 s and 8-9 s: 3.8 s of 10.
	if team.ActiveMs != 6200 {
		t.Errorf("active %d ms, want 6200", team.ActiveMs)
	}
	if team.Source != "hooks" || team.Cost == nil || *team.Cost != 0.5 || team.Currency != "EUR" {
		t.Errorf("source %q, cost %v %s", team.Source, team.Cost, team.Currency)
	}
}

// A plan to approve is a request_permission span from ACP and the stream
// alike: a wait of kind plan, told by what asked it, and no tool call's
// decision.
func TestTeamPlanApproval(t *testing.T) {
	s := time.Second
	spans := []sdktrace.ReadOnlySpan{
		tool(2, "edit", 1*s, 4*s),
		wait(3, 2, spanmap.OpRequestPermission, "approved", 1*s, 2*s, spanmap.RPCMethod.String("cursor/create_plan")),
		wait(4, 2, spanmap.OpRequestPermission, "approved", 2*s, 3*s, spanmap.InteractionKind.String("createPlanRequestQuery")),
		span(1, 0, spanmap.RootName, 0, 10*s, spanmap.OperationName.String(spanmap.OpInvokeAgent)),
	}
	r, ok := FromTrace(spans)
	if !ok {
		t.Fatal("no session")
	}
	if w := r.Team.Waits; len(w) != 2 || w[0].Kind != "plan" || w[1].Kind != "plan" {
		t.Errorf("waits %+v, want two plans", w)
	}
	if len(r.Team.Decisions) != 0 {
		t.Errorf("decisions %+v, want none: a plan approved is no tool call's", r.Team.Decisions)
	}
}

// A session's source is what its turns say (cursor.source); a turn from
// a version that said so only for the hooks is told by its ACP names.
func TestSourceOf(t *testing.T) {
	for _, tt := range []struct {
		attrs []attribute.KeyValue
		want  string
	}{
		{[]attribute.KeyValue{spanmap.Source.String("acp")}, "acp"},
		{[]attribute.KeyValue{spanmap.Source.String("stream")}, "stream"},
		{[]attribute.KeyValue{spanmap.Source.String("hooks")}, "hooks"},
		{[]attribute.KeyValue{spanmap.ACPClientName.String("zed")}, "acp"},
		{nil, "stream"},
	} {
		if got := sourceOf(tt.attrs); got != tt.want {
			t.Errorf("sourceOf(%v) = %q, want %q", tt.attrs, got, tt.want)
		}
	}
}
