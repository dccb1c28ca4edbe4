package compare

import (
	"fmt"
	"strings"

	"github.com/cursor-otel/cursor-otel/internal/oneline"
	"github.com/cursor-otel/cursor-otel/internal/summary"
)

// table writes the comparison: a row a figure, each side's value (the
// median of its runs, with their range when there are several; counts of
// failures per run) with its unit, and the change.
func table(b *strings.Builder, fs []figure, base, new []summary.Report) {
	fmt.Fprintf(b, "| | base (%s) | new (%s) | change |\n|---|---:|---:|---:|\n", oneline.Count(len(base), "run"), oneline.Count(len(new), "run"))
	for _, f := range fs {
		bs, ns := sideOf(f, base), sideOf(f, new)
		bv, bok := bs.value()
		nv, nok := ns.value()
		if !bok && !nok {
			continue
		}
		change := ""
		if bok && nok {
			change = f.change(bv, nv)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", f.label, cell(f, bs), cell(f, ns), change)
	}
}

// cell is one side's value with its unit, with its spread over several
// runs; a side whose runs do not all have the figure says how many do.
// Failures of one run are a count; of several, a number per run and the
// count it comes from.
func cell(f figure, s side) string {
	v, ok := s.value()
	if !ok {
		return "–"
	}
	if s.perRun {
		if s.runs == 1 {
			return number(count, s.sum(), false) + " in 1 run"
		}
		return fmt.Sprintf("%s (%s in %d runs)", f.withUnit(v, false), number(count, s.sum(), false), s.runs)
	}
	out := f.withUnit(v, false)
	if len(s.values) > 1 && s.values[0] != s.values[len(s.values)-1] {
		out += fmt.Sprintf(" (%s–%s)", number(f.kind, s.values[0], false), number(f.kind, s.values[len(s.values)-1], false))
	}
	if len(s.values) < s.runs {
		out += fmt.Sprintf(", %d of %d runs", len(s.values), s.runs)
	}
	return out
}
