package compare

import (
	"slices"
	"sort"

	"github.com/cursor-otel/cursor-otel/internal/summary"
)

// figure is one thing compared, as each run has it. A run that does not
// have it (no usage reported, no calls of a tool kind) has none.
type figure struct {
	name  string // as a threshold names it: wall, tokens, tool:shell
	label string // as the table shows it
	kind  kind
	unit  string // a count's, singular: token, call
	of    func(summary.Report) (float64, bool)
	// perRun: the sides are compared by their number per run (failures:
	// a side's sum over its runs, divided by its runs), not medians.
	perRun bool
}

type kind int

const (
	seconds kind = iota
	count
	dollars
)

// figures are the figures of every comparison; a tool kind any run used
// gets a row of its own.
func figures(runs ...[]summary.Report) []figure {
	ms := func(v int64) float64 { return float64(v) / 1000 }
	fs := []figure{
		{"wall", "wall time", seconds, "", func(r summary.Report) (float64, bool) { return ms(r.WallMs), true }, false},
		{"model", "model time", seconds, "", func(r summary.Report) (float64, bool) { return ms(r.Split.ModelMs), true }, false},
		// Tool time is the wall clock with any tool running: calls in
		// parallel count once. Each kind's row sums its calls' durations,
		// so the rows can add up to more than tool time.
		{"tools", "tool time (wall clock)", seconds, "", func(r summary.Report) (float64, bool) { return ms(r.Split.ToolsMs), true }, false},
		{"idle", "idle time", seconds, "", func(r summary.Report) (float64, bool) { return ms(r.Split.IdleMs), true }, false},
	}
	var kinds []string
	for _, side := range runs {
		for _, r := range side {
			for _, k := range r.ToolKinds {
				if !slices.Contains(kinds, k.Name) {
					kinds = append(kinds, k.Name)
				}
			}
		}
	}
	sort.Strings(kinds)
	for _, name := range kinds {
		fs = append(fs, figure{"tool:" + name, "· " + name + " (its calls summed)", seconds, "", func(r summary.Report) (float64, bool) {
			for _, k := range r.ToolKinds {
				if k.Name == name {
					return ms(k.TotalMs), true
				}
			}
			return 0, true // not used in this run: no time
		}, false})
	}
	tokens := func(f func(*summary.Tokens) int64) func(summary.Report) (float64, bool) {
		return func(r summary.Report) (float64, bool) {
			if r.Tokens == nil {
				return 0, false
			}
			return float64(f(r.Tokens)), true
		}
	}
	fs = append(fs,
		figure{"tokens", "tokens (in + out)", count, "token", tokens(func(t *summary.Tokens) int64 { return t.Input + t.Output }), false},
		figure{"input_tokens", "· in (with the cache)", count, "token", tokens(func(t *summary.Tokens) int64 { return t.Input }), false},
		figure{"output_tokens", "· out", count, "token", tokens(func(t *summary.Tokens) int64 { return t.Output }), false},
		figure{"cost", "cost", dollars, "", func(r summary.Report) (float64, bool) {
			if r.CostUSD == nil {
				return 0, false
			}
			return *r.CostUSD, true
		}, false},
		figure{"model_calls", "model calls", count, "call", func(r summary.Report) (float64, bool) { return float64(len(r.ModelCalls)), true }, false},
		figure{"tool_calls", "tool calls", count, "call", func(r summary.Report) (float64, bool) { return float64(toolCalls(r)), true }, false},
		figure{"failures", "failed runs", count, "run", func(r summary.Report) (float64, bool) { return boolf(r.Outcome != "success"), true }, true},
		figure{"tool_failures", "failed tool calls", count, "call", func(r summary.Report) (float64, bool) { return float64(len(r.Failed)), true }, true},
		figure{"stalls", "stalls", count, "stall", func(r summary.Report) (float64, bool) { return float64(len(r.Stalls)), true }, true},
	)
	return fs
}

// toolCalls is how many tool calls a run made, from its per-kind counts
// (a report read back from JSON has those, not the list of calls).
func toolCalls(r summary.Report) int {
	n := 0
	for _, k := range r.ToolKinds {
		n += k.Count
	}
	return n
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// side is one side's values of a figure, over the runs that have it.
type side struct {
	values []float64 // sorted
	runs   int       // runs on the side, with the figure or not
	perRun bool
}

func sideOf(f figure, runs []summary.Report) side {
	s := side{runs: len(runs), perRun: f.perRun}
	for _, r := range runs {
		if v, ok := f.of(r); ok {
			s.values = append(s.values, v)
		}
	}
	sort.Float64s(s.values)
	return s
}

// value is what the side is compared by: the median of its runs, or for
// counts of failures their number per run; false when no run has the
// figure.
func (s side) value() (float64, bool) {
	if len(s.values) == 0 {
		return 0, false
	}
	if s.perRun {
		return s.sum() / float64(len(s.values)), true
	}
	n := len(s.values)
	if n%2 == 1 {
		return s.values[n/2], true
	}
	return (s.values[n/2-1] + s.values[n/2]) / 2, true
}

func (s side) sum() float64 {
	sum := 0.0
	for _, v := range s.values {
		sum += v
	}
	return sum
}
