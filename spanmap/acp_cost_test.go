package spanmap

import (
	"fmt"
	"strings"
	"testing"
)

func acpCostUpdate(amount float64, currency string) string {
	return fmt.Sprintf(`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"usage_update","used":1000,"size":200000,"cost":{"amount":%v,"currency":%q}}}}`, amount, currency)
}

// acpCostTurns are turns, each reporting the session's cumulative cost
// (none where the amount is negative), after opener.
func acpCostTurns(t *testing.T, opener []string, currency string, cumulative ...float64) []string {
	lines := opener
	for i, c := range cumulative {
		lines = append(lines, fmt.Sprintf(`>{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"a","prompt":[]}}`, 10+i))
		if c >= 0 {
			lines = append(lines, acpCostUpdate(c, currency))
		}
		lines = append(lines, fmt.Sprintf(`<{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn"}}`, 10+i))
	}
	var got []string
	for _, r := range rootsByPrompt(acpScript(t, lines...)) {
		got = append(got, fmt.Sprintf("turn %s session %s %s", orNone(spanAttr(r, "gen_ai.usage.cost")), orNone(spanAttr(r, "cursor.session.cost")), spanAttr(r, "cursor.usage.cost_currency")))
		if spanAttr(r, "gen_ai.usage.cost") != spanAttr(r, "cursor.usage.cost") {
			t.Errorf("gen_ai.usage.cost %q and cursor.usage.cost %q differ", spanAttr(r, "gen_ai.usage.cost"), spanAttr(r, "cursor.usage.cost"))
		}
	}
	return got
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// TestACPCostIsTheTurnsShareOfTheSessions: usage_update's cost is the
// session's cumulative cost; a turn's is what it added, in its currency.
func TestACPCostIsTheTurnsShareOfTheSessions(t *testing.T) {
	newSession := []string{`>{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`, `<{"jsonrpc":"2.0","id":1,"result":{"sessionId":"a"}}`}
	loaded := []string{`>{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"a","cwd":"/w","mcpServers":[]}}`, `<{"jsonrpc":"2.0","id":1,"result":{}}`}
	for _, tt := range []struct {
		name       string
		opener     []string
		cumulative []float64
		want       []string
	}{
		{"three turns", newSession, []float64{0.10, 0.25, 0.25}, []string{"turn 0.1 session 0.1 EUR", "turn 0.15 session 0.25 EUR", "turn 0 session 0.25 EUR"}},
		{"a turn without a report", newSession, []float64{0.10, -1, 0.30}, []string{"turn 0.1 session 0.1 EUR", "turn none session none ", "turn 0.2 session 0.3 EUR"}},
		{"a loaded session's cost before this process is unknown", loaded, []float64{1.5, 1.75}, []string{"turn none session 1.5 EUR", "turn 0.25 session 1.75 EUR"}},
		{"unless its replay reports it", append(append([]string{}, loaded[0], acpCostUpdate(1.25, "EUR")), loaded[1:]...), []float64{1.5}, []string{"turn 0.25 session 1.5 EUR"}},
		{"a report after the answer is the next turn's start", append(append([]string{}, newSession...),
			`>{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"a","prompt":[]}}`, `<{"jsonrpc":"2.0","id":9,"result":{"stopReason":"end_turn"}}`,
			acpCostUpdate(0.4, "EUR")), []float64{0.5}, []string{"turn none session none ", "turn 0.1 session 0.5 EUR"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := acpCostTurns(t, tt.opener, "EUR", tt.cumulative...); strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
				t.Errorf("\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestACPUsageTotalsOnTheRoot: the prompt answer's usage gives the turn's
// tokens by the conventions' names and cursor.usage.* totals, input with
// the cached tokens.
func TestACPUsageTotalsOnTheRoot(t *testing.T) {
	roots := rootsByPrompt(acpScript(t, acpPrompt1,
		`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn","usage":{"inputTokens":400,"outputTokens":300,"totalTokens":1500,"cachedReadTokens":800}}}`))
	for key, want := range map[string]string{"gen_ai.usage.input_tokens": "1200", "cursor.usage.input_tokens": "1200", "cursor.usage.output_tokens": "300",
		"gen_ai.usage.cache_read.input_tokens": "800", "cursor.usage.cache_read.input_tokens": "800"} {
		if got := spanAttr(roots[0], key); got != want {
			t.Errorf("%s = %q, want %s", key, got, want)
		}
	}
}
