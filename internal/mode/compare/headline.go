package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/cursor-otel/cursor-otel/internal/summary"
)

// check is a threshold and what it found.
type check struct {
	threshold
	outcome
}

// headline is the comparison in one line, above the table: how NEW's
// wall time compares with BASE's, how many NEW runs failed, and which
// thresholds were crossed.
func headline(wall figure, base, new []summary.Report, checks []check) string {
	bv, _ := sideOf(wall, base).value()
	nv, _ := sideOf(wall, new).value()
	b, n := shown(wall.kind, bv), shown(wall.kind, nv)
	what := "wall time"
	if len(base) > 1 || len(new) > 1 {
		what = "median wall time"
	}
	pct := 0
	if b != 0 {
		pct = int(math.Round((n - b) / b * 100))
	}
	var line string
	switch {
	case pct > 0 || b == 0 && n > 0:
		line = "new is slower than base"
		if b != 0 {
			line = fmt.Sprintf("new is %d%% slower than base", pct)
		}
	case pct < 0:
		line = fmt.Sprintf("new is %d%% faster than base", -pct)
	default:
		line = "new takes as long as base"
	}
	line += fmt.Sprintf(" (%s %s → %s)", what, wall.withUnit(b, false), wall.withUnit(n, false))
	failed := 0
	for _, r := range new {
		if r.Outcome != "success" {
			failed++
		}
	}
	if failed > 0 {
		line += fmt.Sprintf("; %d of %d new %s failed", failed, len(new), plural(len(new), "run"))
	}
	if len(checks) > 0 {
		var crossed []string
		for _, c := range checks {
			if c.crossed {
				crossed = append(crossed, "`"+c.text+"`")
			}
		}
		if len(crossed) == 0 {
			line += fmt.Sprintf("; within thresholds (%d held)", len(checks))
		} else {
			line += fmt.Sprintf("; %d of %d %s crossed: %s", len(crossed), len(checks), plural(len(checks), "threshold"), strings.Join(crossed, ", "))
		}
	}
	return "**" + line + "**"
}
