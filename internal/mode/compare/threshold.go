package compare

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"
)

// threshold is one --fail-if: a figure, a comparison, and what it is
// compared with: NEW's value (failures>0), its change from BASE
// (cost>+0.50), or its relative change (wall>+20%).
type threshold struct {
	text     string
	figure   string
	op       string
	limit    float64
	change   bool // the change from BASE, not NEW's value
	relative bool // the change in percent of BASE
}

// thresholdSyntax is compiled when first needed: only compare reads
// thresholds, and compiling it cost every start of cursor-otel.
var thresholdSyntax = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*([a-z_]+(?::[A-Za-z0-9_.-]+)?)\s*(>=|<=|>|<)\s*([+-]?)(\d+(?:\.\d+)?)(%?)\s*$`)
})

// parseThreshold reads FIGURE OP VALUE: VALUE with a sign is a change,
// with % a relative one.
func parseThreshold(s string) (threshold, error) {
	m := thresholdSyntax().FindStringSubmatch(s)
	if m == nil {
		return threshold{}, fmt.Errorf("--fail-if %q: write FIGURE OP VALUE, such as wall>+20%%, cost>+0.50 or failures>0", s)
	}
	limit, _ := strconv.ParseFloat(m[4], 64)
	if m[3] == "-" {
		limit = -limit
	}
	return threshold{text: s, figure: m[1], op: m[2], limit: limit, change: m[3] != "" || m[5] != "", relative: m[5] != ""}, nil
}

// verdict says whether the threshold is crossed, and what it measured. A
// figure not known where the threshold needs it (no usage reported, an
// unpriced model) crosses it: a gate does not pass on what it cannot see.
func (t threshold) verdict(base, new float64, haveBase, haveNew bool) (crossed bool, measured string, err error) {
	if !haveNew || t.change && !haveBase {
		return true, "unknown", nil
	}
	v := new
	switch {
	case t.relative:
		if base == 0 {
			return false, "", fmt.Errorf("--fail-if %q: BASE's %s is 0, a relative change has no meaning", t.text, t.figure)
		}
		v = (new - base) / base * 100
		measured = fmt.Sprintf("%+.1f%%", v)
	case t.change:
		v = new - base
		measured = fmt.Sprintf("%+g", round(v))
	default:
		measured = fmt.Sprintf("%g", round(v))
	}
	switch t.op {
	case ">":
		crossed = v > t.limit
	case ">=":
		crossed = v >= t.limit
	case "<":
		crossed = v < t.limit
	case "<=":
		crossed = v <= t.limit
	}
	return crossed, measured, nil
}

func round(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 4, 64), 64)
	return r
}
