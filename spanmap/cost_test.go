package spanmap

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"

	"github.com/cursor-otel/cursor-otel/internal/pricing"
	"github.com/cursor-otel/cursor-otel/parse"
)

// costStream is a session of model with the usage given (none when
// usage is ""), ending in success or error.
func costStream(model, usage string, isError bool) string {
	lines := []string{
		fmt.Sprintf(`{"type":"system","subtype":"init","session_id":"c-1","model":%q}`, model),
		`{"type":"assistant","message":{"content":[{"type":"text","text":"done"}]},"session_id":"c-1","timestamp_ms":1790000001000}`,
	}
	result := fmt.Sprintf(`{"type":"result","subtype":"success","is_error":%v,"result":"done","session_id":"c-1","duration_ms":1000,"timestamp_ms":1790000002000`, isError)
	if usage != "" {
		result += `,"usage":` + usage
	}
	return strings.Join(append(lines, result+"}"), "\n") + "\n"
}

// The session's cost: tokens at the model's price, or unpriced, and the
// budget's verdict.
func TestSessionCost(t *testing.T) {
	usage := `{"inputTokens":1200,"outputTokens":9500,"cacheReadTokens":480000,"cacheWriteTokens":36000}`
	tests := []struct {
		name            string
		model, usage    string
		isError         bool
		budget          float64
		cost            string // cursor.usage.cost; "" none
		pricing, key    string
		input           string // gen_ai.usage.input_tokens
		errType, status string
	}{
		// claude-sonnet-4-6: 1200×3 + 480000×0.3 + 36000×3.75 + 9500×15 = $0.4251
		{"priced", "Claude 4.6 Sonnet", usage, false, 0, "0.4251", "genai-prices 2026-08-21", "claude-sonnet-4-6", "517200", "", ""},
		// auto: 1200×1.25 + 480000×0.25 + 36000×1.25 + 9500×6 = $0.2235
		{"Cursor's own", "Auto", usage, false, 0, "0.2235", "cursor 2026-08", "auto", "517200", "", ""},
		{"unpriced", "Mystery 9", usage, false, 0, "", "unpriced", "", "517200", "", ""},
		{"zero usage", "Auto", `{"inputTokens":0,"outputTokens":0}`, false, 0, "0", "cursor 2026-08", "auto", "0", "", ""},
		{"no usage", "Auto", "", false, 0, "", "", "", "", "", ""},
		{"under budget", "Auto", usage, false, 0.5, "0.2235", "cursor 2026-08", "auto", "517200", "", ""},
		{"over budget", "Auto", usage, false, 0.2, "0.2235", "cursor 2026-08", "auto", "517200",
			"budget_exceeded", "estimated cost $0.22 is over the budget of $0.20 by $0.02"},
		{"unpriced, with a budget", "Mystery 9", usage, false, 5, "", "unpriced", "", "517200",
			"budget_exceeded", `model "Mystery 9" is unpriced: the cost cannot be shown under the budget of $5.00`},
		{"no usage, with a budget", "Auto", "", false, 5, "", "", "", "",
			"budget_exceeded", "no usage reported: the cost cannot be shown under the budget of $5.00"},
		{"a failed run over budget fails as it failed", "Auto", usage, true, 0.2, "0.2235", "cursor 2026-08", "auto", "517200",
			"agent_error", "done; estimated cost $0.22 is over the budget of $0.20 by $0.02"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, exp := newTestRecorder(Options{MaxBudgetUSD: tt.budget, Now: func() time.Time { return replayTime }})
			recordString(rec, costStream(tt.model, tt.usage, tt.isError))
			rec.Finish(End{})
			session := spansNamed(exp.GetSpans(), OpInvokeAgent)[0]
			got := []string{attr(session, CostUSD), attr(session, GenAICost), attr(session, CostPricing), attr(session, CostModel), attr(session, InputTokens), attr(session, ErrorType)}
			want := []string{tt.cost, tt.cost, tt.pricing, tt.key, tt.input, tt.errType}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("cost, gen_ai cost, pricing, model, input tokens, error type:\n got %q\nwant %q", got, want)
			}
			if tt.status != "" && (session.Status.Code != codes.Error || session.Status.Description != tt.status) {
				t.Errorf("status %v %q, want %q", session.Status.Code, session.Status.Description, tt.status)
			}
			if over := rec.OverBudget(); (len(over) > 0) != (tt.budget > 0 && tt.errType != "") {
				t.Errorf("over budget %q", over)
			}
		})
	}
}

// A user's prices come first.
func TestSessionCostFromAUserFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "prices.json")
	os.WriteFile(file, []byte(`{"models": {"auto": {"input": 2, "output": 10}}}`), 0o644)
	table, err := pricing.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	rec, exp := newTestRecorder(Options{Prices: table, Now: func() time.Time { return replayTime }})
	recordString(rec, costStream("Auto", `{"inputTokens":1000000,"outputTokens":100000}`, false))
	rec.Finish(End{})
	session := spansNamed(exp.GetSpans(), OpInvokeAgent)[0]
	if cost, src := attr(session, CostUSD), attr(session, CostPricing); cost != "3" || src != "file prices.json" {
		t.Errorf("cost %s from %q, want 3 (1M×$2 + 0.1M×$10) from the file", cost, src)
	}
}

// recordString records a stream given as text, read in replay.
func recordString(rec *Stream, stream string) {
	dec := parse.NewDecoder(strings.NewReader(stream))
	for ev, err := dec.Next(); err == nil; ev, err = dec.Next() {
		rec.Record(ev, time.Time{})
	}
}
