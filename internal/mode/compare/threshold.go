package compare

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"sync"
)

// threshold is one --fail-if: a figure, a comparison, and what it is
// compared with: NEW's value (failures>0), its change from BASE
// (cost>+0.50, wall>+20s), or its relative change (wall>+20%). A value
// without a unit is in the figure's own: seconds for times, dollars for
// cost, a count for the rest (per run for failures and stalls).
type threshold struct {
	text     string
	figure   string
	op       string
	limit    float64
	change   bool   // the change from BASE, not NEW's value
	relative bool   // the change in percent of BASE
	unit     string // the unit written: "s", "$" or none
}

// thresholdSyntax is compiled when first needed: only compare reads
// thresholds, and compiling it cost every start of cursor-otel.
var thresholdSyntax = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*([a-z_]+(?::[A-Za-z0-9_.-]+)?)\s*(>=|<=|>|<)\s*([+-]?)(\$?)(\d+(?:\.\d+)?)\s*(%|s?)\s*$`)
})

const thresholdExamples = "such as wall>+20%, wall>+20s, cost>+0.50 or failures>0"

// parseThreshold reads FIGURE OP VALUE: VALUE with a sign is a change,
// with % a relative one; s or $ say its unit.
func parseThreshold(s string) (threshold, error) {
	m := thresholdSyntax().FindStringSubmatch(s)
	if m == nil || m[4] == "$" && m[6] != "" {
		return threshold{}, fmt.Errorf("--fail-if %q: write FIGURE OP VALUE, %s", s, thresholdExamples)
	}
	limit, _ := strconv.ParseFloat(m[5], 64)
	if m[3] == "-" {
		limit = -limit
	}
	t := threshold{text: s, figure: m[1], op: m[2], limit: limit, change: m[3] != "" || m[6] == "%", relative: m[6] == "%"}
	switch {
	case m[4] == "$":
		t.unit = "$"
	case m[6] == "s":
		t.unit = "s"
	}
	return t, nil
}

// fits says whether the unit the threshold is written in is its figure's.
func (t threshold) fits(f figure) error {
	switch {
	case t.unit == "s" && f.kind != seconds:
		return fmt.Errorf("--fail-if %q: %s is not in seconds; write it without the s, or with %% for a relative change", t.text, t.figure)
	case t.unit == "$" && f.kind != dollars:
		return fmt.Errorf("--fail-if %q: %s is not in dollars; write it without the $, or with %% for a relative change", t.text, t.figure)
	}
	return nil
}

// outcome is what a threshold found.
type outcome struct {
	crossed  bool
	measured string // for the table: +25.0%, +3.00s, 1 per run, unknown
	why      string // for the line on stderr: the figure, the change, the values
}

// verdict says whether the threshold is crossed, measured on the figures
// as the table shows them. A figure not known where the threshold needs
// it (no usage reported, an unpriced model) crosses it: a gate does not
// pass on what it cannot see.
func (t threshold) verdict(f figure, base, new float64, haveBase, haveNew bool) (outcome, error) {
	switch {
	case !haveNew:
		return outcome{true, "unknown", fmt.Sprintf("NEW's runs have no %s", f.name)}, nil
	case t.change && !haveBase:
		return outcome{true, "unknown", fmt.Sprintf("BASE's runs have no %s", f.name)}, nil
	}
	b, n := shown(f.kind, base), shown(f.kind, new)
	values := fmt.Sprintf("(%s → %s)", f.withUnit(b, false), f.withUnit(n, false))
	if !t.change {
		values = fmt.Sprintf("(base %s)", f.withUnit(b, false))
		if !haveBase {
			values = ""
		}
	}
	var v float64
	var o outcome
	switch {
	case t.relative:
		if b == 0 {
			return outcome{}, fmt.Errorf("--fail-if %q: BASE's %s is 0, a relative change has no meaning", t.text, t.figure)
		}
		v = math.Round((n-b)/b*100*1e4) / 1e4 // no float noise at the limit
		o.measured = fmt.Sprintf("%+.1f%%", v)
	case t.change:
		v = shown(f.kind, n-b)
		o.measured = f.withUnit(v, true)
	default:
		v = n
		o.measured = f.withUnit(v, false)
	}
	switch t.op {
	case ">":
		o.crossed = v > t.limit
	case ">=":
		o.crossed = v >= t.limit
	case "<":
		o.crossed = v < t.limit
	case "<=":
		o.crossed = v <= t.limit
	}
	o.why = f.name + " " + o.measured
	if values != "" {
		o.why += " " + values
	}
	return o, nil
}
