package tracer

import (
	"fmt"
	"strconv"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// readSampler reads OTEL_TRACES_SAMPLER and its argument as the
// specification defines them, and wraps the sampler so that every span is
// recorded: the sampler decides what is exported, never what cursor-otel's
// own reports (summaries, replay trees) see.
func readSampler(getenv func(string) string, problems []error) (sdktrace.Sampler, []error) {
	name := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER")))
	ratio := func() float64 {
		arg := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG"))
		if arg == "" {
			return 1
		}
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 {
			problems = append(problems, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG=%q: write a ratio from 0 to 1, e.g. 0.25", arg))
			return 1
		}
		return r
	}
	var s sdktrace.Sampler
	switch name {
	case "", "parentbased_always_on":
		s = sdktrace.ParentBased(sdktrace.AlwaysSample())
	case "always_on":
		s = sdktrace.AlwaysSample()
	case "always_off":
		s = sdktrace.NeverSample()
	case "traceidratio":
		s = sdktrace.TraceIDRatioBased(ratio())
	case "parentbased_always_off":
		s = sdktrace.ParentBased(sdktrace.NeverSample())
	case "parentbased_traceidratio":
		s = sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio()))
	default:
		problems = append(problems, fmt.Errorf("OTEL_TRACES_SAMPLER=%q is not supported: write always_on, always_off, traceidratio, "+
			"parentbased_always_on, parentbased_always_off or parentbased_traceidratio", name))
		s = sdktrace.ParentBased(sdktrace.AlwaysSample())
	}
	return recordAll{s}, problems
}

// recordAll records what its sampler drops: such a span is seen by every
// span processor but not exported (the SDK's batch processor exports
// sampled spans only).
type recordAll struct{ sdktrace.Sampler }

func (r recordAll) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	res := r.Sampler.ShouldSample(p)
	if res.Decision == sdktrace.Drop {
		res.Decision = sdktrace.RecordOnly
	}
	return res
}

func (r recordAll) Description() string { return "RecordAll{" + r.Sampler.Description() + "}" }
