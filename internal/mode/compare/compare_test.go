package compare

import (
	"bytes"
	"flag"
	"github.com/cursor-otel/cursor-otel/internal/ostext"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/pricing"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

func run(t *testing.T, base, new string, failIf ...string) (status int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	status = Run(Config{Base: base, New: new, FailIf: failIf, Prices: pricing.Default(), Stdout: &out, Stderr: &errOut})
	return status, out.String(), errOut.String()
}

// Thresholds against the median of three runs on main: wall 12 s, cost
// $0.12, tokens 23,200; the PR's one run: wall 15 s (+25%), cost $0.20,
// one failed tool call.
func TestThresholds(t *testing.T) {
	main, slower, failed := "testdata/main.jsonl", "testdata/pr-slower.jsonl", "testdata/pr-failed.jsonl"
	tests := []struct {
		name      string
		new       string
		failIf    []string
		status    int
		measured  []string // rows of the threshold table
		crossed   []string // the lines on stderr, one a threshold crossed
		errorPart string
	}{
		{"no thresholds", slower, nil, 0, nil, nil, ""},
		{"relative change crossed", slower, []string{"wall>+20%"}, 1, []string{"| `wall>+20%` | +25.0% | **crossed** |"},
			[]string{"cursor-otel: --fail-if wall>+20% crossed: wall +25.0% (12.00s → 15.00s)"}, ""},
		{"relative change held", slower, []string{"wall>+30%"}, 0, []string{"| `wall>+30%` | +25.0% | held |"}, nil, ""},
		{"a change in the figure's unit, or with its unit", slower, []string{"wall>+2", "wall>+3s", "wall>=+3.0s", "cost>+$0.05", "tool:shell>+2.5s"}, 1,
			[]string{"| `wall>+2` | +3.00s | **crossed** |", "| `wall>+3s` | +3.00s | held |", "| `wall>=+3.0s` | +3.00s | **crossed** |", "| `cost>+$0.05` | +$0.08 | **crossed** |", "| `tool:shell>+2.5s` | +3.00s | **crossed** |"},
			[]string{"cursor-otel: --fail-if wall>+2 crossed: wall +3.00s (12.00s → 15.00s)", "cursor-otel: --fail-if wall>=+3.0s crossed: wall +3.00s (12.00s → 15.00s)",
				"cursor-otel: --fail-if cost>+$0.05 crossed: cost +$0.08 ($0.12 → $0.20)", "cursor-otel: --fail-if tool:shell>+2.5s crossed: tool:shell +3.00s (7.00s → 10.00s)"}, ""},
		{"absolute change", slower, []string{"cost>+0.05", "cost>+0.10", "tokens>+8300"}, 1,
			[]string{"| `cost>+0.05` | +$0.08 | **crossed** |", "| `cost>+0.10` | +$0.08 | held |", "| `tokens>+8300` | +8,300 tokens | held |"},
			[]string{"cursor-otel: --fail-if cost>+0.05 crossed: cost +$0.08 ($0.12 → $0.20)"}, ""},
		{"NEW's own value", slower, []string{"tool_failures>0", "failures>0"}, 1,
			[]string{"| `tool_failures>0` | 1 per run | **crossed** |", "| `failures>0` | 0 per run | held |"},
			[]string{"cursor-otel: --fail-if tool_failures>0 crossed: tool_failures 1 per run (base 0 per run)"}, ""},
		{"a tool kind, a decrease", slower, []string{"tool:shell>+2", "model<-10%"}, 1,
			[]string{"| `tool:shell>+2` | +3.00s | **crossed** |", "| `model<-10%` | +0.0% | held |"},
			[]string{"cursor-otel: --fail-if tool:shell>+2 crossed: tool:shell +3.00s (7.00s → 10.00s)"}, ""},
		{"failures per run on a side of several runs", failed, []string{"failures>0", "stalls>=0.5", "stalls>0.5", "wall<=11.5"}, 1,
			[]string{"| `failures>0` | 0.5 per run | **crossed** |", "| `stalls>=0.5` | 0.5 per run | **crossed** |", "| `stalls>0.5` | 0.5 per run | held |", "| `wall<=11.5` | 11.50s | **crossed** |"},
			[]string{"cursor-otel: --fail-if failures>0 crossed: failures 0.5 per run (base 0 per run)",
				"cursor-otel: --fail-if stalls>=0.5 crossed: stalls 0.5 per run (base 0 per run)",
				"cursor-otel: --fail-if wall<=11.5 crossed: wall 11.50s (base 12.00s)"}, ""},
		{"a figure some runs lack: the median of the others", failed, []string{"cost>+1"}, 0, []string{"| `cost>+1` | -$0.01 | held |"}, nil, ""},
		{"a figure no run has crosses", "testdata/pr-unpriced.jsonl", []string{"cost>+1", "tokens<1"}, 1,
			[]string{"| `cost>+1` | unknown | **crossed** |", "| `tokens<1` | unknown | **crossed** |"},
			[]string{"cursor-otel: --fail-if cost>+1 crossed: NEW's runs have no cost", "cursor-otel: --fail-if tokens<1 crossed: NEW's runs have no tokens"}, ""},
		{"no such figure", slower, []string{"speed>1"}, 2, nil, nil, `no figure "speed"`},
		{"not a threshold", slower, []string{"wall is slow"}, 2, nil, nil, "write FIGURE OP VALUE, such as wall>+20%, wall>+20s"},
		{"a unit twice", slower, []string{"cost>+$5s"}, 2, nil, nil, "write FIGURE OP VALUE"},
		{"seconds of a count", slower, []string{"tokens>+20s"}, 2, nil, nil, `--fail-if "tokens>+20s": tokens is not in seconds`},
		{"dollars of a time", slower, []string{"wall>+$1"}, 2, nil, nil, `--fail-if "wall>+$1": wall is not in dollars`},
		{"input that is no run", "testdata/not-a-run.jsonl", nil, 2, nil, nil, "neither a --summary-json file nor a recording"},
		{"input that is not there", "testdata/missing.jsonl", nil, 2, nil, nil, ostext.Missing("testdata/missing.jsonl")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := main
			if tt.name == "input that is no run" || tt.name == "input that is not there" {
				base = tt.new
			}
			status, out, errOut := run(t, base, tt.new, tt.failIf...)
			if status != tt.status {
				t.Errorf("status %d, want %d; stderr %q", status, tt.status, errOut)
			}
			for _, m := range tt.measured {
				if !strings.Contains(out, m+"\n") {
					t.Errorf("no row %s in\n%s", m, out)
				}
			}
			if tt.errorPart != "" && (!strings.Contains(errOut, tt.errorPart) || strings.Count(errOut, "\n") != 1) {
				t.Errorf("stderr %q, want one line with %q", errOut, tt.errorPart)
			}
			if want := strings.Join(tt.crossed, "\n"); tt.errorPart == "" && strings.TrimSuffix(errOut, "\n") != want {
				t.Errorf("stderr\n%s\nwant\n%s", errOut, want)
			}
		})
	}
}

// The tables as a person reads them: medians with their range, sums of
// failures, changes; from summary files and from recordings alike.
func TestTables(t *testing.T) {
	for _, tt := range []struct{ name, base, new string }{
		{"summaries", "testdata/main.jsonl", "testdata/pr-failed.jsonl"},
		{"recordings", "../../../examples/fix-failing-test.ndjson", "../../../examples/parallel-tools.ndjson"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, out, errOut := run(t, tt.base, tt.new)
			if status != 0 || errOut != "" {
				t.Fatalf("status %d, stderr %q", status, errOut)
			}
			golden.Check(t, filepath.Join("testdata", tt.name+".golden.md"), out, *update)
		})
	}
}

// A recording and the summary of its replay compare as equal: one set of
// figures, computed once.
func TestRecordingEqualsItsSummary(t *testing.T) {
	rec := "../../../examples/fix-failing-test.ndjson"
	reports, err := readRuns(rec, spanmap.Options{})
	if err != nil || len(reports) != 1 {
		t.Fatal(err, len(reports))
	}
	summaryFile := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(summaryFile, reports[0].JSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, _ := run(t, rec, summaryFile, "wall>0%", "tokens>0%", "cost>0%", "tool_calls>0%")
	for _, row := range []string{"| `wall>0%` | +0.0% | held |", "| `tokens>0%` | +0.0% | held |", "| `cost>0%` | +0.0% | held |", "| `tool_calls>0%` | +0.0% | held |"} {
		if !strings.Contains(out, row) {
			t.Errorf("no row %s in\n%s", row, out)
		}
	}
}
