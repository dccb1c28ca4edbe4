package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withModel is the fix-failing-test example as if run on another model.
func withModel(t *testing.T, model string) string {
	t.Helper()
	data, err := os.ReadFile("examples/fix-failing-test.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "stream.ndjson")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), "Claude 4.5 Sonnet", model)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// --max-budget-usd: a run that succeeded and cost more, or whose cost
// cannot be known, exits 3 after the agent finished, with one line; a
// failing agent's status stands; stdout is the agent's whatever happens.
// The example costs $0.2074 at claude-sonnet-4-5's prices.
func TestBudgetGate(t *testing.T) {
	fix, err := os.ReadFile("examples/fix-failing-test.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		env      []string
		exit     int
		stderr   string // a part of the one line; "" for no line
		errType  string
		pricing  string
		costSeen bool
	}{
		{"under", []string{"CURSOR_OTEL_MAX_BUDGET_USD=0.50"}, 0, "", "", "genai-prices 2026-08-21", true},
		{"over", []string{"CURSOR_OTEL_MAX_BUDGET_USD=0.10"}, 3,
			"cursor-otel: estimated cost $0.21 is over the budget of $0.10 by $0.11; exit 3 (--max-budget-usd)", "budget_exceeded", "genai-prices 2026-08-21", true},
		{"over, quiet", []string{"CURSOR_OTEL_MAX_BUDGET_USD=$0.10", "CURSOR_OTEL_QUIET=1"}, 3,
			"over the budget of $0.10", "budget_exceeded", "genai-prices 2026-08-21", true},
		{"unpriced", []string{"CURSOR_OTEL_MAX_BUDGET_USD=5", "FAKEAGENT_STREAM=" + withModel(t, "Mystery 9")}, 3,
			`model "Mystery 9" is unpriced: the cost cannot be shown under the budget of $5.00; exit 3`, "budget_exceeded", "unpriced", false},
		{"agent failing, over", []string{"CURSOR_OTEL_MAX_BUDGET_USD=0.10", "FAKEAGENT_EXIT=1"}, 1, "", "exit_status", "genai-prices 2026-08-21", true},
		{"no budget", nil, 0, "", "", "genai-prices 2026-08-21", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := append([]string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson"}, tt.env...)
			w := runWrapped(t, wrapSpec{args: streamArgs(), env: env})
			if w.exit != tt.exit {
				t.Errorf("exit %d, want %d; stderr %q", w.exit, tt.exit, w.stderr)
			}
			want := string(fix)
			if strings.Contains(tt.name, "unpriced") {
				want = strings.ReplaceAll(want, "Claude 4.5 Sonnet", "Mystery 9")
			}
			if w.stdout != want {
				t.Errorf("stdout changed")
			}
			if tt.stderr == "" && w.stderr != "" || tt.stderr != "" && (!strings.Contains(w.stderr, tt.stderr) || strings.Count(w.stderr, "\n") != 1) {
				t.Errorf("stderr %q, want one line with %q", w.stderr, tt.stderr)
			}
			s := sessionSpan(t, w.spans)
			if got := value(s, "error.type"); got != tt.errType {
				t.Errorf("error.type %q, want %q", got, tt.errType)
			}
			if got := value(s, "cursor.cost.pricing"); got != tt.pricing {
				t.Errorf("pricing %q, want %q", got, tt.pricing)
			}
			if got := value(s, "cursor.usage.cost"); (got != "") != tt.costSeen || tt.costSeen && !strings.HasPrefix(got, "0.2074") {
				t.Errorf("cost %q", got)
			}
		})
	}
}

// A price file that cannot be read is a wrong setting: the agent runs,
// untraced, and one line names the file and what is wrong; replay exits 2.
func TestBadPriceFile(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(bad, []byte(`{"models": {"auto": {"input": -1, "output": 6}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	w := runWrapped(t, wrapSpec{args: streamArgs(), env: []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "CURSOR_OTEL_PRICES=" + bad}})
	if w.exit != 0 || len(w.spans) != 0 || strings.Count(w.stderr, "\n") != 1 ||
		!strings.Contains(w.stderr, bad+`: "auto": a negative input price (-1)`) || !strings.Contains(w.stderr, "running cursor-agent untraced") {
		t.Errorf("exit %d, %d spans, stderr %q", w.exit, len(w.spans), w.stderr)
	}
	r := runBinary(t, []string{"OTEL_TRACES_EXPORTER=none"}, nil, "--prices", bad, "replay", "examples/fix-failing-test.ndjson")
	if r.exit != 2 || !strings.Contains(r.stderr, `"auto": a negative input price`) || r.stdout != "" {
		t.Errorf("replay: exit %d, stdout %q, stderr %q", r.exit, r.stdout, r.stderr)
	}
}
