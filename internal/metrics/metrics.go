// Package metrics records what each finished session's report says as
// OpenTelemetry metrics, for trends across runs and across a team: the
// GenAI semantic conventions' client metrics, and cursor-agent's own
// figures (time per tool, outcomes, where the time went, cost, the lines
// its edits changed, the decisions and waits of the person). It reads
// summary.Report, so that the metrics, the summaries and compare show the
// same figures, computed once from the same spans.
//
// The GenAI names not yet released are those of semantic-conventions-genai
// at commit e9de14ba (model/gen-ai) with pull request #374 (the
// gen_ai.client.inference.usage.* counters) and #521
// (gen_ai.client.inference.duration).
package metrics

import (
	"cmp"
	"context"
	"fmt"

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

// Names of the metrics the GenAI conventions define (pinned above) that
// the Go semconv packages do not have.
const (
	InferenceInputTokens      = "gen_ai.client.inference.usage.input_tokens"             // {token}, input with the cached
	InferenceOutputTokens     = "gen_ai.client.inference.usage.output_tokens"            // {token}
	InferenceCacheReadTokens  = "gen_ai.client.inference.usage.cache_read.input_tokens"  // {token}
	InferenceCacheWriteTokens = "gen_ai.client.inference.usage.cache_write.input_tokens" // {token}
	InferenceDuration         = "gen_ai.client.inference.duration"                       // s, a chat's
	ExecuteToolDuration       = "gen_ai.execute_tool.duration"                           // s, a tool call's
)

// Names of cursor's own metrics (no convention has them).
const (
	ToolDuration        = "cursor.tool.duration"         // s, by gen_ai.tool.name and cursor.tool.outcome (gen_ai.execute_tool.duration beside it)
	Sessions            = "cursor.sessions"              // {session}, by cursor.session.outcome, error.type
	SessionPartDuration = "cursor.session.part.duration" // s, by cursor.session.part: model, tools, idle
	Cost                = "cursor.usage.cost"            // by cursor.usage.cost_currency and cursor.cost.pricing
	Stalls              = "cursor.stalls"                // {stall}, by what was in flight
	LinesOfCode         = "cursor.lines_of_code"         // {line}, by cursor.lines.type and gen_ai.tool.name
	Decisions           = "cursor.tool.decisions"        // {decision}, by cursor.decision and gen_ai.tool.name
	WaitDuration        = "cursor.wait.duration"         // s, by cursor.wait.kind
	ActiveTime          = "cursor.agent.active_time"     // s: a session's wall time less its waits on the person
)

// Recorder records reports as metrics.
type Recorder struct {
	tokens    genaiconv.ClientTokenUsage
	duration  genaiconv.ClientOperationDuration
	usage     [4]metric.Int64Counter // input, output, cache read, cache write
	inference metric.Float64Histogram
	execTool  metric.Float64Histogram
	tool      metric.Float64Histogram
	sessions  metric.Int64Counter
	parts     metric.Float64Histogram
	cost      metric.Float64Counter
	stalls    metric.Int64Counter
	lines     metric.Int64Counter
	decisions metric.Int64Counter
	waits     metric.Float64Histogram
	active    metric.Float64Counter
	sets      attributeSets
	where     Where
	repos     repos
}

// New makes the instruments on m; where says where the sessions run, on
// every point.
func New(m metric.Meter, where Where) (*Recorder, error) {
	r := Recorder{where: where}
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	var err error
	r.tokens, err = genaiconv.NewClientTokenUsage(m, metric.WithExplicitBucketBoundaries(tokenBuckets...))
	add(err)
	r.duration, err = genaiconv.NewClientOperationDuration(m, metric.WithExplicitBucketBoundaries(longBuckets...))
	add(err)
	for i, u := range []struct{ name, desc string }{
		{InferenceInputTokens, "The number of input tokens used, the cached ones among them."},
		{InferenceOutputTokens, "The number of output tokens used."},
		{InferenceCacheReadTokens, "The number of input tokens served from a provider-managed cache."},
		{InferenceCacheWriteTokens, "The number of input tokens written to a provider-managed cache."},
	} {
		r.usage[i], err = m.Int64Counter(u.name, metric.WithUnit("{token}"), metric.WithDescription(u.desc))
		add(err)
	}
	r.inference, err = m.Float64Histogram(InferenceDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of the model's inference calls."), metric.WithExplicitBucketBoundaries(longBuckets...))
	add(err)
	r.execTool, err = m.Float64Histogram(ExecuteToolDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of a single tool execution."), metric.WithExplicitBucketBoundaries(longBuckets...))
	add(err)
	r.tool, err = m.Float64Histogram(ToolDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of cursor-agent's tool calls."), metric.WithExplicitBucketBoundaries(longBuckets...))
	add(err)
	r.sessions, err = m.Int64Counter(Sessions, metric.WithUnit("{session}"),
		metric.WithDescription("cursor-agent sessions, by how they ended."))
	add(err)
	r.parts, err = m.Float64Histogram(SessionPartDuration, metric.WithUnit("s"),
		metric.WithDescription("Where a session's wall time went: model, tools, idle; the parts add up to the session."),
		metric.WithExplicitBucketBoundaries(longBuckets...))
	add(err)
	// The unit is no currency: a point's is cursor.usage.cost_currency.
	r.cost, err = m.Float64Counter(Cost, metric.WithUnit("{cost}"),
		metric.WithDescription("Cost of cursor-agent sessions in cursor.usage.cost_currency: cursor-otel's USD estimate, or the agent's own."))
	add(err)
	r.stalls, err = m.Int64Counter(Stalls, metric.WithUnit("{stall}"),
		metric.WithDescription("Gaps without output from the agent longer than the stall threshold."))
	add(err)
	r.lines, err = m.Int64Counter(LinesOfCode, metric.WithUnit("{line}"),
		metric.WithDescription("Lines the agent's edits added and removed."))
	add(err)
	r.decisions, err = m.Int64Counter(Decisions, metric.WithUnit("{decision}"),
		metric.WithDescription("Tool calls put to the person or a hook and decided: accepted or rejected."))
	add(err)
	r.waits, err = m.Float64Histogram(WaitDuration, metric.WithUnit("s"),
		metric.WithDescription("Each wait of the agent on the person, from request to answer."), metric.WithExplicitBucketBoundaries(longBuckets...))
	add(err)
	r.active, err = m.Float64Counter(ActiveTime, metric.WithUnit("s"),
		metric.WithDescription("The agent's active time: a session's duration less its waits on the person."))
	add(err)
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
	}
	// The work directory's repository is read now, beside the run, not on
	// its exit path: a wrapped session's is the same directory.
	go r.repos.of(where.WorkDir)
	return &r, nil
}

// Record records one session's report; who is its person, when the
// team opted in to name them.
func (r *Recorder) Record(ctx context.Context, rep summary.Report, who Person) {
	if r == nil {
		return
	}
	sc := r.where.scopeOf(rep, who, &r.repos)
	invoke, chat, tool := string(genaiconv.OperationNameInvokeAgent), string(genaiconv.OperationNameChat), string(genaiconv.OperationNameExecuteTool)
	with := func(kind setKind, a, b string) metric.MeasurementOption {
		return metric.WithAttributeSet(r.sets.of(kind, sc, a, b))
	}
	if t := rep.Tokens; t != nil {
		r.tokens.RecordSet(ctx, t.Input, r.sets.of(tokensOf, sc, invoke, string(genaiconv.TokenTypeInput)))
		r.tokens.RecordSet(ctx, t.Output, r.sets.of(tokensOf, sc, invoke, string(genaiconv.TokenTypeOutput)))
		for i, n := range []int64{t.Input, t.Output, t.CacheRead, t.CacheCreation} {
			r.usage[i].Add(ctx, n, with(usageOf, invoke, ""))
		}
	}
	r.duration.RecordSet(ctx, seconds(rep.WallMs), r.sets.of(operationOf, sc, invoke, rep.ErrorType))
	for _, mc := range rep.ModelCalls {
		r.duration.RecordSet(ctx, seconds(mc.DurationMs), r.sets.of(operationOf, sc, chat, mc.ErrorType))
		r.inference.Record(ctx, seconds(mc.DurationMs), with(operationOf, chat, mc.ErrorType))
	}
	for _, c := range rep.ToolCalls {
		errType := toolErrorType(c)
		r.duration.RecordSet(ctx, seconds(c.DurationMs), r.sets.of(operationOf, sc, tool, errType))
		r.execTool.Record(ctx, seconds(c.DurationMs), with(executeToolOf, c.Name, errType))
		r.tool.Record(ctx, seconds(c.DurationMs), with(toolOf, c.Name, c.Outcome))
	}
	r.sessions.Add(ctx, 1, with(sessionOf, rep.Outcome, rep.ErrorType))
	for _, part := range []struct {
		name string
		ms   int64
	}{{"model", rep.Split.ModelMs}, {"tools", rep.Split.ToolsMs}, {"idle", rep.Split.IdleMs}} {
		r.parts.Record(ctx, seconds(part.ms), with(partOf, part.name, ""))
	}
	team := rep.Team
	if team.Cost != nil {
		r.cost.Add(ctx, *team.Cost, with(costOf, rep.Pricing, team.Currency))
	}
	for _, st := range rep.Stalls {
		r.stalls.Add(ctx, 1, with(stallOf, st.InFlight, ""))
	}
	for _, l := range team.Lines {
		if l.Added > 0 {
			r.lines.Add(ctx, l.Added, with(linesOf, "added", l.Tool))
		}
		if l.Removed > 0 {
			r.lines.Add(ctx, l.Removed, with(linesOf, "removed", l.Tool))
		}
	}
	for _, d := range team.Decisions {
		r.decisions.Add(ctx, 1, with(decisionOf, decisionWord(d.Accept), d.Tool))
	}
	for _, w := range team.Waits {
		r.waits.Record(ctx, w.Duration.Seconds(), with(waitOf, w.Kind, ""))
	}
	r.active.Add(ctx, seconds(team.ActiveMs), with(activeOf, "", ""))
}

// toolErrorType is a tool call's error.type as its span gives it: none
// for a success or a rejection (a decision, not an error).
func toolErrorType(c summary.ToolCall) string {
	switch c.Outcome {
	case spanmap.OutcomeSuccess, spanmap.OutcomeRejected:
		return ""
	}
	return cmp.Or(c.ErrorType, spanmap.ErrTool)
}

func decisionWord(accept bool) string {
	if accept {
		return "accept"
	}
	return "reject"
}

func seconds(ms int64) float64 { return float64(ms) / 1000 }
