package summary

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// Text from a recording stays text in a rendered summary: a backtick in a
// command does not end its code span, HTML does not render, a pipe does
// not split the table, an escape sequence is shown, not sent.
func TestMarkdownKeepsTextText(t *testing.T) {
	command := "echo `id` && printf '\x1b[2J' | tee <img src=x onerror=alert(1)>"
	one := int64(1)
	r := Report{
		TraceID: "0123456789abcdef0123456789abcdef", SessionID: "s`1", Model: "gpt-5 <b>bold</b>",
		Outcome: "error", Error: "failed: <script>alert(1)</script> **loud** [link](http://x)", ExitCode: &one,
		WallMs:    2000,
		ToolKinds: []ToolKind{{Name: "mcp_<i>x</i>", Count: 1, TotalMs: 1000}},
		Slowest:   []ToolCall{{Name: "shell", Subject: command, Outcome: "failure", ExitCode: &one, DurationMs: 1000}},
		Failed:    []ToolCall{{Name: "shell", Subject: "``", Outcome: "failure", Error: "<u>x</u>"}},
	}
	r.ToolCalls = r.Slowest
	md := r.Markdown()
	if strings.ContainsAny(md, "\x1b") {
		t.Errorf("summary holds a raw escape:\n%q", md)
	}
	// Rendered as GitHub does: HTML in Markdown is HTML.
	var rendered bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe())).Convert([]byte(md), &rendered); err != nil {
		t.Fatal(err)
	}
	out := rendered.String()
	for _, tag := range []string{"<script", "<img", "<b>", "<i>", "<u>", "<strong>loud", "<a href"} {
		if strings.Contains(out, tag) {
			t.Errorf("rendered summary holds %s:\n%s", tag, out)
		}
	}
	// The whole command in one code element, as written (escaped for HTML).
	want := "<code>echo `id` &amp;&amp; printf '\\x1b[2J' | tee &lt;img src=x onerror=alert(1)&gt;</code>"
	if !strings.Contains(out, want) {
		t.Errorf("rendered summary does not show the command whole, want %s in:\n%s", want, out)
	}
	for _, text := range []string{"failed: &lt;script&gt;alert(1)&lt;/script&gt; **loud** [link](http://x)", "gpt-5 &lt;b&gt;bold&lt;/b&gt;", "<code>s`1</code>", "<code>``</code>"} {
		if !strings.Contains(out, text) {
			t.Errorf("rendered summary does not show %s:\n%s", text, out)
		}
	}
	if cells := strings.Count(out, "<td"); cells != 4*3+5+4+4 {
		t.Errorf("%d table cells, want 25 (a pipe split a cell?):\n%s", cells, out)
	}
}

// What the summary says of the cost: the estimate and its price, an
// unpriced model, the budget's verdict.
func TestMarkdownCost(t *testing.T) {
	usd := func(v float64) *float64 { return &v }
	tests := []struct {
		r    Report
		want []string
	}{
		{Report{CostUSD: usd(0.2074), Pricing: "genai-prices 2026-08-21", PricedAs: "claude-sonnet-4-5"},
			[]string{"Cost: $0.21 estimated (`claude-sonnet-4-5` at genai-prices 2026-08-21 prices)"}},
		{Report{CostUSD: usd(0.0058), Pricing: "cursor 2026-08", PricedAs: "auto"}, []string{"Cost: $0.0058 estimated"}},
		{Report{Model: "Mystery 9", Pricing: "unpriced"}, []string{"Cost: unknown, no price table knows the model `Mystery 9` (give its prices with --prices)"}},
		{Report{Outcome: "error", ErrorType: "budget_exceeded", CostUSD: usd(0.2074), BudgetUSD: usd(0.10), Pricing: "p", PricedAs: "m"},
			[]string{"### cursor-agent went over budget in", "budget $0.10: **over by $0.11**"}},
		{Report{Outcome: "success", CostUSD: usd(0.05), BudgetUSD: usd(0.10), Pricing: "p", PricedAs: "m"}, []string{"budget $0.10: within it", "### cursor-agent succeeded"}},
		{Report{BudgetUSD: usd(1)}, []string{"Cost: unknown, the run reported no usage · budget $1.00: **over**"}},
	}
	for _, tt := range tests {
		md := tt.r.Markdown()
		for _, w := range tt.want {
			if !strings.Contains(md, w) {
				t.Errorf("summary lacks %q:\n%s", w, md)
			}
		}
	}
	if md := (Report{}).Markdown(); strings.Contains(md, "Cost:") {
		t.Errorf("a run with no usage and no budget has a cost line:\n%s", md)
	}
}

// A tool's name and outcome, whatever the stream put in them, stay on the
// tool's row of the waterfall.
func TestWaterfallRowsStayRows(t *testing.T) {
	r := Report{WallMs: 1000, ModelCalls: []ModelCall{{DurationMs: 1000}}}
	r.ToolCalls = []ToolCall{{Name: "```mermaid\ngraph TD", Subject: "x\ny", Outcome: "odd\noutcome", DurationMs: 10}}
	if rows := strings.Count(r.waterfall(), "\n"); rows != 3 {
		t.Errorf("%d waterfall lines, want a header and 2 rows:\n%s", rows, r.waterfall())
	}
}
