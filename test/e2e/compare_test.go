package e2e

import (
	"strings"
	"testing"
)

// compare through the binary: every figure with its unit, a verdict above
// the table, a threshold in seconds, in percent or in the figure's own
// unit, and a line on stderr for each threshold crossed (the CI log's
// reason for a failed step); exit 1 crossed, 0 held, 2 unreadable.
func TestCompare(t *testing.T) {
	const base, slower = "examples/fix-failing-test.ndjson", "examples/failed-run.ndjson"
	tests := []struct {
		name     string
		args     []string
		exit     int
		stdout   []string // parts of the table
		stderr   []string // its lines, whole
		badInput string   // a part of the one line for exit 2
	}{
		{"units, no thresholds", []string{base, slower}, 0, []string{
			"**new is 17% slower than base (wall time 31.20s → 36.40s); 1 of 1 new run failed**\n\n| | base (1 run) | new (1 run) | change |\n",
			"| wall time | 31.20s | 36.40s | +5.20s (+17%) |",
			"| tool time (wall clock) | 18.24s |",
			"| · shell (its calls summed) | 17.75s |",
			"| tokens (in + out) | 95,208 tokens | – |  |",
			"| cost | $0.2074 | – |  |",
			"| model calls | 5 calls | 2 calls | -3 calls (-60%) |",
			"| failed runs | 0 in 1 run | 1 in 1 run | +1 per run |",
		}, nil, ""},
		{"seconds, percent, the figure's own unit", []string{"--fail-if", "wall>+5s", "--fail-if", "wall>+20%", "--fail-if", "wall>+5", "--fail-if", "model_calls<-2", base, slower}, 1, []string{
			"; 3 of 4 thresholds crossed: `wall>+5s`, `wall>+5`, `model_calls<-2`**",
			"| `wall>+5s` | +5.20s | **crossed** |",
			"| `wall>+20%` | +16.7% | held |",
			"| `wall>+5` | +5.20s | **crossed** |",
			"| `model_calls<-2` | -3 calls | **crossed** |",
		}, []string{
			"cursor-otel: --fail-if wall>+5s crossed: wall +5.20s (31.20s → 36.40s)",
			"cursor-otel: --fail-if wall>+5 crossed: wall +5.20s (31.20s → 36.40s)",
			"cursor-otel: --fail-if model_calls<-2 crossed: model_calls -3 calls (5 calls → 2 calls)",
		}, ""},
		{"held", []string{"--fail-if", "wall>+30%", base, slower}, 0, []string{"; within thresholds (1 held)**"}, nil, ""},
		{"unknown crosses", []string{"--fail-if", "cost>+$0.50", base, slower}, 1, []string{"| `cost>+$0.50` | unknown | **crossed** |"},
			[]string{"cursor-otel: --fail-if cost>+$0.50 crossed: NEW's runs have no cost"}, ""},
		{"seconds of a count", []string{"--fail-if", "tokens>+20s", base, slower}, 2, nil, nil, `--fail-if "tokens>+20s": tokens is not in seconds`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCommand(t, binary, nil, nil, append([]string{"compare"}, tt.args...)...)
			if r.exit != tt.exit {
				t.Errorf("exit %d, want %d; stderr %q", r.exit, tt.exit, r.stderr)
			}
			for _, part := range tt.stdout {
				if !strings.Contains(r.stdout, part) {
					t.Errorf("stdout lacks %q:\n%s", part, r.stdout)
				}
			}
			if tt.badInput != "" {
				if r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tt.badInput) {
					t.Errorf("stdout %q, stderr %q: want nothing and one line with %q", r.stdout, r.stderr, tt.badInput)
				}
				return
			}
			if want := strings.Join(tt.stderr, "\n"); strings.TrimSuffix(r.stderr, "\n") != want {
				t.Errorf("stderr\n%s\nwant\n%s", r.stderr, want)
			}
		})
	}
}
