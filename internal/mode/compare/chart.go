package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cursor-otel/cursor-otel/internal/summary"
)

// chartRuns is the most runs of a side a chart draws: the last ones, as a
// --summary-json file appends them.
const chartRuns = 50

// charts draws the spread of the runs when a side has several: each
// run's wall time, and its cost, as a Mermaid bar chart, the base runs
// then the new ones, with a line at the base side's value. The values
// are the table's own figures.
func charts(b *strings.Builder, fs []figure, base, new []summary.Report) {
	if len(base) < 2 && len(new) < 2 {
		return
	}
	for _, name := range []string{"wall", "cost"} {
		if i := slices.IndexFunc(fs, func(f figure) bool { return f.name == name }); i >= 0 {
			chart(b, fs[i], base, new)
		}
	}
}

// chartColours are the bars' and the line's: the default theme's first
// colour is too pale to read as a bar.
const chartColours = `---
config:
  themeVariables:
    xyChart:
      plotColorPalette: "#8a90dd, #d9480f"
---
`

// chart draws one figure of every run that has it. Runs without it (no
// usage reported, an unpriced model) are left out, not drawn as zero.
func chart(b *strings.Builder, f figure, base, new []summary.Report) {
	var labels []string
	var values []float64
	var missing []string
	for _, side := range []struct {
		name string
		runs []summary.Report
	}{{"base", base}, {"new", new}} {
		from := max(0, len(side.runs)-chartRuns)
		if from > 0 {
			missing = append(missing, fmt.Sprintf("the first %d %s runs", from, side.name))
		}
		without := 0
		for i := from; i < len(side.runs); i++ {
			v, ok := f.of(side.runs[i])
			if !ok {
				without++
				continue
			}
			labels = append(labels, fmt.Sprintf("%q", fmt.Sprintf("%s %d", side.name, i+1)))
			values = append(values, v)
		}
		if without > 0 {
			missing = append(missing, fmt.Sprintf("%d %s %s without a %s", without, side.name, plural(without, "run"), f.label))
		}
	}
	if len(values) == 0 {
		return
	}
	unit, digits := "seconds", 2
	if f.kind == dollars {
		unit, digits = "US dollars", 4
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', digits, 64) }
	series := func(vs []float64) string {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = num(v)
		}
		return "[" + strings.Join(out, ", ") + "]"
	}
	title := f.label + " per run, " + unit
	top := slices.Max(values)
	line := ""
	if v, ok := sideOf(f, base).value(); ok {
		what := "value"
		if len(base) > 1 {
			what = "median"
		}
		title += " (line: the base runs' " + what + ")"
		line = "    line " + series(slices.Repeat([]float64{v}, len(values))) + "\n"
		top = max(top, v)
	}
	fmt.Fprintf(b, "\n```mermaid\n%sxychart-beta\n    title \"%s\"\n    x-axis [%s]\n    y-axis 0 --> %s\n    bar %s\n%s```\n",
		chartColours, title, strings.Join(labels, ", "), num(ceiling(top)), series(values), line)
	if len(missing) > 0 {
		fmt.Fprintf(b, "\nNot drawn: %s.\n", strings.Join(missing, ", "))
	}
}

// ceiling is a round top for an axis over values up to v: a tenth above
// it, rounded up to two significant figures.
func ceiling(v float64) float64 {
	if v <= 0 {
		return 1
	}
	step := math.Pow10(int(math.Floor(math.Log10(v*1.1))) - 1)
	return math.Ceil(v*1.1/step) * step
}

func plural(n int, what string) string {
	if n == 1 {
		return what
	}
	return what + "s"
}
