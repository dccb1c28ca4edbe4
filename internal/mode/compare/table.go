package compare

import (
	"fmt"
	"strings"

	"github.com/cursor-otel/cursor-otel/internal/oneline"
	"github.com/cursor-otel/cursor-otel/internal/pricing"
	"github.com/cursor-otel/cursor-otel/internal/summary"
)

// table writes the comparison: a row a figure, each side's value (the
// median of its runs, with their range when there are several; the sum
// for counts of failures) and the change.
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
			change = format(f.kind, nv-bv, true)
			if bv != 0 {
				change += fmt.Sprintf(" (%+.0f%%)", (nv-bv)/bv*100)
			}
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", f.label, cell(f, bs), cell(f, ns), change)
	}
}

// cell is one side's value, with its spread over several runs; a side
// whose runs do not all have the figure says how many do.
func cell(f figure, s side) string {
	v, ok := s.value()
	if !ok {
		return "–"
	}
	out := format(f.kind, v, false)
	if !s.total && len(s.values) > 1 && s.values[0] != s.values[len(s.values)-1] {
		out += fmt.Sprintf(" (%s–%s)", format(f.kind, s.values[0], false), format(f.kind, s.values[len(s.values)-1], false))
	}
	if s.total && s.runs > 1 {
		out += fmt.Sprintf(" in %d runs", s.runs)
	}
	if len(s.values) < s.runs && !s.total {
		out += fmt.Sprintf(", %d of %d runs", len(s.values), s.runs)
	}
	return out
}

func format(k kind, v float64, signed bool) string {
	sign := ""
	if signed && v >= 0 {
		sign = "+"
	}
	switch k {
	case seconds:
		return sign + fmt.Sprintf("%.2fs", v)
	case dollars:
		if v < 0 {
			return "-" + pricing.USD(-v)
		}
		return sign + pricing.USD(v)
	}
	return sign + fmt.Sprintf("%.0f", v)
}
