package metrics

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/cursor-otel/cursor-otel/internal/summary"
)

// collected is every point recorded: its metric, attributes and value
// (a histogram's sum; its count in n).
type collected struct {
	metric string
	attrs  attribute.Set
	value  float64
	n      uint64
}

func record(t *testing.T, where Where, reps ...summary.Report) []collected {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	r, err := New(mp.Meter("test"), where)
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range reps {
		r.Record(context.Background(), rep, Person{})
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var out []collected
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out = append(out, collected{m.Name, p.Attributes, p.Sum, p.Count})
				}
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					out = append(out, collected{m.Name, p.Attributes, float64(p.Sum), p.Count})
				}
			case metricdata.Sum[float64]:
				for _, p := range d.DataPoints {
					out = append(out, collected{m.Name, p.Attributes, p.Value, 0})
				}
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out = append(out, collected{m.Name, p.Attributes, float64(p.Value), 0})
				}
			default:
				t.Fatalf("%s: %T", m.Name, d)
			}
		}
	}
	return out
}

// sum adds the values of a metric's points holding every k=v of with.
func sum(points []collected, metric string, with ...string) (value float64, n uint64) {
	for _, p := range points {
		if p.metric != metric {
			continue
		}
		all := true
		for _, w := range with {
			k, v, _ := strings.Cut(w, "=")
			got, ok := p.attrs.Value(attribute.Key(k))
			all = all && ok && got.String() == v
		}
		if all {
			value, n = value+p.value, n+p.n
		}
	}
	return value, n
}

func f(v float64) *float64 { return &v }

// teamReport is a session with edits, decisions, a wait and a cost.
func teamReport() summary.Report {
	return summary.Report{
		TraceID: "0af7651916cd43dd8448eb211c80319c", SessionID: "c0ffee", Model: "gpt-5", Outcome: "success", WallMs: 3000,
		Tokens:     &summary.Tokens{Input: 1200, Output: 300, CacheRead: 1000, CacheCreation: 100},
		ToolCalls:  []summary.ToolCall{{Name: "edit", Subject: "/home/me/secret/main.go", Outcome: "success", DurationMs: 500}, {Name: "shell", Subject: "rm -rf /", Outcome: "rejected", DurationMs: 10}, {Name: "shell", Outcome: "error", ErrorType: "timeout", DurationMs: 2000}},
		ModelCalls: []summary.ModelCall{{DurationMs: 700}, {DurationMs: 300, ErrorType: "agent_error"}},
		Pricing:    "builtin",
		Team: summary.Team{
			Lines:     []summary.Lines{{Tool: "edit", Added: 5, Removed: 2}, {Tool: "write", Added: 10}},
			Decisions: []summary.Decision{{Tool: "edit", Accept: true}, {Tool: "shell"}},
			Waits:     []summary.Wait{{Kind: "permission", Duration: 400 * time.Millisecond}},
			ActiveMs:  2600, Cost: f(0.42), Currency: "EUR", Client: "zed", Cwd: "/nonexistent/work", Source: "acp",
		},
	}
}

// A session's team metrics: lines, decisions, waits, active time and
// cost in its currency, each point saying where it ran.
func TestTeamMetrics(t *testing.T) {
	points := record(t, Where{Surface: SurfaceACP, WorkDir: t.TempDir()}, teamReport())
	for _, tt := range []struct {
		metric string
		with   []string
		want   float64
	}{
		{LinesOfCode, []string{"cursor.lines.type=added"}, 15},
		{LinesOfCode, []string{"cursor.lines.type=added", "gen_ai.tool.name=edit"}, 5},
		{LinesOfCode, []string{"cursor.lines.type=removed"}, 2},
		{Decisions, []string{"cursor.decision=accept", "gen_ai.tool.name=edit"}, 1},
		{Decisions, []string{"cursor.decision=reject", "gen_ai.tool.name=shell"}, 1},
		{WaitDuration, []string{"cursor.wait.kind=permission"}, 0.4},
		{ActiveTime, nil, 2.6},
		{Cost, []string{"cursor.usage.cost_currency=EUR"}, 0.42},
		{Cost, []string{"cursor.usage.cost_currency=USD"}, 0},
		{ExecuteToolDuration, []string{"error.type=timeout"}, 2},
		{ExecuteToolDuration, []string{"gen_ai.tool.name=shell"}, 2.01},
		{InferenceDuration, []string{"error.type=agent_error"}, 0.3},
		{InferenceDuration, nil, 1},
	} {
		if got, _ := sum(points, tt.metric, tt.with...); got < tt.want-1e-9 || got > tt.want+1e-9 {
			t.Errorf("%s %v = %g, want %g", tt.metric, tt.with, got, tt.want)
		}
	}
	// A rejection is a decision, not an error.
	for _, p := range points {
		if v, ok := p.attrs.Value("error.type"); ok && v.AsString() == "rejected" {
			t.Errorf("%s: error.type=rejected", p.metric)
		}
	}
	// Every point says where it ran, and names no session, path or command.
	for _, p := range points {
		for _, want := range []string{"cursor.surface=acp", "cursor.client.name=zed", "gen_ai.request.model=gpt-5"} {
			k, v, _ := strings.Cut(want, "=")
			if got, ok := p.attrs.Value(attribute.Key(k)); !ok || got.String() != v {
				t.Errorf("%s %v: no %s", p.metric, p.attrs.Encoded(attribute.DefaultEncoder()), want)
			}
		}
		assertBounded(t, p)
	}
}

// assertBounded fails for a point whose attributes hold a session's id,
// a path or a command.
func assertBounded(t *testing.T, p collected) {
	t.Helper()
	for _, kv := range p.attrs.ToSlice() {
		v := kv.Value.String()
		if strings.Contains(v, "/") || strings.Contains(v, "c0ffee") || strings.Contains(v, "0af76519") || strings.Contains(v, "rm -rf") {
			t.Errorf("%s: attribute %s=%q names a session, a path or a command", p.metric, kv.Key, v)
		}
	}
}

// The new token counters and the old histogram agree on the totals.
func TestTokenMetricsAgree(t *testing.T) {
	a, b := teamReport(), teamReport()
	b.Tokens = &summary.Tokens{Input: 50, Output: 7}
	points := record(t, Where{Surface: SurfaceCLI}, a, b)
	in, _ := sum(points, "gen_ai.client.token.usage", "gen_ai.token.type=input")
	out, _ := sum(points, "gen_ai.client.token.usage", "gen_ai.token.type=output")
	for _, tt := range []struct {
		metric string
		want   float64
	}{{InferenceInputTokens, in}, {InferenceOutputTokens, out}, {InferenceCacheReadTokens, 1000}, {InferenceCacheWriteTokens, 100}} {
		if got, _ := sum(points, tt.metric, "gen_ai.token.modality=unknown", "gen_ai.provider.name=cursor"); got != tt.want {
			t.Errorf("%s = %g, want %g", tt.metric, got, tt.want)
		}
	}
	if in != 1250 || out != 307 {
		t.Errorf("histogram: input %g, output %g; want 1250, 307", in, out)
	}
}

// The surface: a wrapped run's is cli; a replay's is each session's; the
// editor's name only for ACP.
func TestSurfaces(t *testing.T) {
	hooks, stream := teamReport(), teamReport()
	hooks.Team.Source, stream.Team.Source = "hooks", "stream"
	for _, tt := range []struct {
		where   Where
		rep     summary.Report
		surface string
	}{
		{Where{Surface: SurfaceCLI}, stream, "cli"},
		{Where{Surface: SurfaceCI, Repository: "widgets"}, stream, "ci"},
		{Where{}, hooks, "hooks"},
		{Where{}, stream, "cli"},
		{Where{}, teamReport(), "acp"},
	} {
		for _, p := range record(t, tt.where, tt.rep) {
			if v, _ := p.attrs.Value(SurfaceKey); v.AsString() != tt.surface {
				t.Errorf("%+v: %s surface %q, want %q", tt.where, p.metric, v.AsString(), tt.surface)
			}
			if _, ok := p.attrs.Value(ClientNameKey); ok != (tt.surface == "acp") {
				t.Errorf("%+v: %s: client name %v", tt.where, p.metric, ok)
			}
			if v, _ := p.attrs.Value(RepositoryKey); v.AsString() != tt.where.Repository {
				t.Errorf("%+v: %s: repository %q", tt.where, p.metric, v.AsString())
			}
		}
	}
}
