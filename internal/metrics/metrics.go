// Package metrics records what each finished session's report says as
// OpenTelemetry metrics, for trends across runs: the GenAI semantic
// conventions' client metrics, and cursor-agent's own figures (time per
// tool, outcomes, where the time went, cost). It reads summary.Report, so
// that the metrics, the summaries and compare show the same figures,
// computed once.
package metrics

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/semconv/v1.40.0/genaiconv"

	"github.com/cursor-otel/cursor-otel/internal/summary"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

// The buckets the GenAI conventions advise for token counts and
// operation durations; cursor's own durations go on, past 82 s, to 45
// minutes, as tool calls and sessions do.
var (
	tokenBuckets    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	longBuckets     = append(append([]float64{}, durationBuckets...), 163.84, 327.68, 655.36, 1310.72, 2621.44)
)

// Names and attributes of cursor's own metrics (no convention has them).
const (
	ToolDuration        = "cursor.tool.duration"         // s, by gen_ai.tool.name and cursor.tool.outcome
	Sessions            = "cursor.sessions"              // {session}, by cursor.session.outcome, error.type, model
	SessionPartDuration = "cursor.session.part.duration" // s, by cursor.session.part: model, tools, idle
	Cost                = "cursor.usage.cost"            // USD, by model and cursor.cost.pricing
	Stalls              = "cursor.stalls"                // {stall}, by what was in flight
)

var (
	outcomeKey = attribute.Key("cursor.session.outcome")
	partKey    = attribute.Key("cursor.session.part")
	stallKey   = attribute.Key("cursor.stall.in_flight")
)

// Recorder records reports as metrics.
type Recorder struct {
	tokens   genaiconv.ClientTokenUsage
	duration genaiconv.ClientOperationDuration
	tool     metric.Float64Histogram
	sessions metric.Int64Counter
	parts    metric.Float64Histogram
	cost     metric.Float64Counter
	stalls   metric.Int64Counter
	sets     attributeSets
}

// New makes the instruments on m.
func New(m metric.Meter) (*Recorder, error) {
	var r Recorder
	var errs [7]error
	r.tokens, errs[0] = genaiconv.NewClientTokenUsage(m, metric.WithExplicitBucketBoundaries(tokenBuckets...))
	r.duration, errs[1] = genaiconv.NewClientOperationDuration(m, metric.WithExplicitBucketBoundaries(longBuckets...))
	r.tool, errs[2] = m.Float64Histogram(ToolDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of cursor-agent's tool calls."), metric.WithExplicitBucketBoundaries(longBuckets...))
	r.sessions, errs[3] = m.Int64Counter(Sessions, metric.WithUnit("{session}"),
		metric.WithDescription("cursor-agent sessions, by how they ended."))
	r.parts, errs[4] = m.Float64Histogram(SessionPartDuration, metric.WithUnit("s"),
		metric.WithDescription("Where a session's wall time went: model, tools, idle; the parts add up to the session."),
		metric.WithExplicitBucketBoundaries(longBuckets...))
	r.cost, errs[5] = m.Float64Counter(Cost, metric.WithUnit("USD"),
		metric.WithDescription("Estimated cost of cursor-agent sessions, priced from their token usage."))
	r.stalls, errs[6] = m.Int64Counter(Stalls, metric.WithUnit("{stall}"),
		metric.WithDescription("Gaps without output from the agent longer than the stall threshold."))
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
	}
	return &r, nil
}

// Record records one session's report.
func (r *Recorder) Record(ctx context.Context, rep summary.Report) {
	if r == nil {
		return
	}
	invoke, chat, tool := string(genaiconv.OperationNameInvokeAgent), string(genaiconv.OperationNameChat), string(genaiconv.OperationNameExecuteTool)
	if t := rep.Tokens; t != nil {
		r.tokens.RecordSet(ctx, t.Input, r.sets.of(tokensOf, invoke, rep.Model, string(genaiconv.TokenTypeInput)))
		r.tokens.RecordSet(ctx, t.Output, r.sets.of(tokensOf, invoke, rep.Model, string(genaiconv.TokenTypeOutput)))
	}
	r.duration.RecordSet(ctx, seconds(rep.WallMs), r.sets.of(operationOf, invoke, rep.Model, rep.ErrorType))
	for _, mc := range rep.ModelCalls {
		r.duration.RecordSet(ctx, seconds(mc.DurationMs), r.sets.of(operationOf, chat, rep.Model, mc.ErrorType))
	}
	for _, c := range rep.ToolCalls {
		errType := ""
		if c.Outcome != spanmap.OutcomeSuccess {
			errType = c.Outcome
		}
		r.duration.RecordSet(ctx, seconds(c.DurationMs), r.sets.of(operationOf, tool, rep.Model, errType))
		r.tool.Record(ctx, seconds(c.DurationMs), metric.WithAttributeSet(r.sets.of(toolOf, c.Name, c.Outcome, "")))
	}
	r.sessions.Add(ctx, 1, metric.WithAttributeSet(r.sets.of(sessionOf, rep.Outcome, rep.Model, rep.ErrorType)))
	for _, part := range []struct {
		name string
		ms   int64
	}{{"model", rep.Split.ModelMs}, {"tools", rep.Split.ToolsMs}, {"idle", rep.Split.IdleMs}} {
		r.parts.Record(ctx, seconds(part.ms), metric.WithAttributeSet(r.sets.of(partOf, part.name, "", "")))
	}
	if rep.CostUSD != nil {
		r.cost.Add(ctx, *rep.CostUSD, metric.WithAttributeSet(r.sets.of(costOf, rep.Pricing, rep.Model, "")))
	}
	for _, st := range rep.Stalls {
		r.stalls.Add(ctx, 1, metric.WithAttributeSet(r.sets.of(stallOf, st.InFlight, "", "")))
	}
}

func seconds(ms int64) float64 { return float64(ms) / 1000 }
