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

	"github.com/cursor-otel/cursor-otel/spanmap"
	"github.com/cursor-otel/cursor-otel/summary"
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
	model := attribute.String(string(spanmap.RequestModel), rep.Model)
	with := func(errType string, attrs ...attribute.KeyValue) []attribute.KeyValue {
		if rep.Model != "" {
			attrs = append(attrs, model)
		}
		if errType != "" {
			attrs = append(attrs, attribute.String(string(spanmap.ErrorType), errType))
		}
		return attrs
	}
	if t := rep.Tokens; t != nil {
		r.tokens.Record(ctx, t.Input, genaiconv.OperationNameInvokeAgent, "cursor", genaiconv.TokenTypeInput, with("")...)
		r.tokens.Record(ctx, t.Output, genaiconv.OperationNameInvokeAgent, "cursor", genaiconv.TokenTypeOutput, with("")...)
	}
	r.duration.Record(ctx, seconds(rep.WallMs), genaiconv.OperationNameInvokeAgent, "cursor", with(rep.ErrorType)...)
	for _, mc := range rep.ModelCalls {
		r.duration.Record(ctx, seconds(mc.DurationMs), genaiconv.OperationNameChat, "cursor", with(mc.ErrorType)...)
	}
	for _, c := range rep.ToolCalls {
		errType := ""
		if c.Outcome != spanmap.OutcomeSuccess {
			errType = c.Outcome
		}
		r.duration.Record(ctx, seconds(c.DurationMs), genaiconv.OperationNameExecuteTool, "cursor", with(errType)...)
		r.tool.Record(ctx, seconds(c.DurationMs), metric.WithAttributes(
			attribute.String(string(spanmap.ToolName), c.Name), attribute.String(string(spanmap.ToolOutcome), c.Outcome)))
	}
	r.sessions.Add(ctx, 1, metric.WithAttributes(with(rep.ErrorType, outcomeKey.String(rep.Outcome))...))
	for part, ms := range map[string]int64{"model": rep.Split.ModelMs, "tools": rep.Split.ToolsMs, "idle": rep.Split.IdleMs} {
		r.parts.Record(ctx, seconds(ms), metric.WithAttributes(partKey.String(part)))
	}
	if rep.CostUSD != nil {
		r.cost.Add(ctx, *rep.CostUSD, metric.WithAttributes(with("", attribute.String(string(spanmap.CostPricing), rep.Pricing))...))
	}
	for _, s := range rep.Stalls {
		r.stalls.Add(ctx, 1, metric.WithAttributes(stallKey.String(s.InFlight)))
	}
}

func seconds(ms int64) float64 { return float64(ms) / 1000 }
