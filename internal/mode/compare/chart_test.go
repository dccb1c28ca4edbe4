package compare

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/summary"
)

// Many runs a side: the chart draws the last 50 of each and says which it
// did not; one run against one draws none.
func TestChartOfManyRuns(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int, cost func(i int) *float64) string {
		var b strings.Builder
		for i := range n {
			r := summary.Report{TraceID: fmt.Sprintf("%032x", i), Outcome: "success", WallMs: int64(10_000 + i*100), CostUSD: cost(i)}
			b.Write(r.JSON())
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	priced := func(i int) *float64 { v := 0.01 * float64(i+1); return &v }
	base := write("base.jsonl", 60, priced)
	newRuns := write("new.jsonl", 3, func(i int) *float64 {
		if i == 1 {
			return nil
		}
		return priced(i)
	})
	status, out, errOut := run(t, base, newRuns)
	if status != 0 || errOut != "" {
		t.Fatalf("status %d, stderr %q", status, errOut)
	}
	if n := strings.Count(out, "```mermaid\n"+chartColours+"xychart-beta\n"); n != 2 {
		t.Fatalf("%d charts, want wall time and cost:\n%s", n, out)
	}
	wall := out[strings.Index(out, "```mermaid"):]
	for _, want := range []string{
		`x-axis ["base 11", "base 12", `, `"base 60", "new 1", "new 2", "new 3"]`,
		"    title \"wall time per run, seconds (line: the base runs' median)\"\n",
		"    bar [11.00, 11.10, ", ", 15.90, 10.00, 10.10, 10.20]\n    line [12.95, 12.95, ",
		"    y-axis 0 --> 18.00\n",
		"Not drawn: the first 10 base runs.\n",
		`"base 60", "new 1", "new 3"]`, "    y-axis 0 --> 0.6600\n", "    bar [0.1100, ", ", 0.6000, 0.0100, 0.0300]\n    line [0.3050, ",
		"Not drawn: the first 10 base runs, 1 new run without a cost.\n",
	} {
		if !strings.Contains(wall, want) {
			t.Errorf("charts lack %q:\n%s", want, wall)
		}
	}
	if strings.Contains(wall, `"base 10"`) {
		t.Errorf("chart draws more than the last 50 base runs")
	}
	one := write("one.jsonl", 1, priced)
	if _, out, _ := run(t, one, one); strings.Contains(out, "mermaid") {
		t.Errorf("one run against one has a chart:\n%s", out)
	}
}

func TestCeiling(t *testing.T) {
	for _, tt := range []struct{ v, want float64 }{{14, 16}, {0.14, 0.16}, {0, 1}, {95, 110}, {1234, 1400}, {0.0004, 0.00044}} {
		if got := ceiling(tt.v); fmt.Sprintf("%.6g", got) != fmt.Sprintf("%.6g", tt.want) {
			t.Errorf("ceiling(%v) = %v, want %v", tt.v, got, tt.want)
		}
	}
}
