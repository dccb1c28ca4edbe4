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
		errorPart string
	}{
		{"no thresholds", slower, nil, 0, nil, ""},
		{"relative change crossed", slower, []string{"wall>+20%"}, 1, []string{"| `wall>+20%` | +25.0% | **crossed** |"}, ""},
		{"relative change held", slower, []string{"wall>+30%"}, 0, []string{"| `wall>+30%` | +25.0% | held |"}, ""},
		{"absolute change", slower, []string{"cost>+0.05", "cost>+0.10"}, 1,
			[]string{"| `cost>+0.05` | +0.08 | **crossed** |", "| `cost>+0.10` | +0.08 | held |"}, ""},
		{"NEW's own value", slower, []string{"tool_failures>0", "failures>0"}, 1,
			[]string{"| `tool_failures>0` | 1 | **crossed** |", "| `failures>0` | 0 | held |"}, ""},
		{"a tool kind, a decrease", slower, []string{"tool:shell>+2", "model<-10%"}, 1,
			[]string{"| `tool:shell>+2` | +3 | **crossed** |", "| `model<-10%` | +0.0% | held |"}, ""},
		{"several runs on the new side", failed, []string{"failures>0", "stalls>=1", "wall<=11.5"}, 1,
			[]string{"| `failures>0` | 1 | **crossed** |", "| `stalls>=1` | 1 | **crossed** |", "| `wall<=11.5` | 11.5 | **crossed** |"}, ""},
		{"a figure some runs lack: the median of the others", failed, []string{"cost>+1"}, 0, []string{"| `cost>+1` | -0.01 | held |"}, ""},
		{"a figure no run has crosses", "testdata/pr-unpriced.jsonl", []string{"cost>+1", "tokens<1"}, 1,
			[]string{"| `cost>+1` | unknown | **crossed** |", "| `tokens<1` | unknown | **crossed** |"}, ""},
		{"no such figure", slower, []string{"speed>1"}, 2, nil, `no figure "speed"`},
		{"not a threshold", slower, []string{"wall is slow"}, 2, nil, "write FIGURE OP VALUE"},
		{"input that is no run", "testdata/not-a-run.jsonl", nil, 2, nil, "neither a --summary-json file nor a recording"},
		{"input that is not there", "testdata/missing.jsonl", nil, 2, nil, ostext.Missing("testdata/missing.jsonl")},
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
			if tt.errorPart == "" && errOut != "" {
				t.Errorf("stderr %q", errOut)
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
