package summary

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/pricing"
	"github.com/cursor-otel/cursor-otel/internal/visible"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

// waterfallWidth is the number of characters the session's wall time spans
// in the waterfall; waterfallRows bounds its rows.
const (
	waterfallWidth = 48
	waterfallRows  = 40
)

// Markdown renders the report for a person reading a CI page.
func (r Report) Markdown() string {
	var b strings.Builder
	outcome := "succeeded"
	switch {
	case r.ErrorType == spanmap.ErrBudgetExceeded:
		outcome = "went over budget"
	case r.Outcome != "success":
		outcome = "failed"
	}
	fmt.Fprintf(&b, "### cursor-agent %s in %s\n\n", outcome, dur(r.WallMs))
	trace := "`" + r.TraceID + "`"
	if r.TraceURL != "" {
		trace = "[" + trace + "](" + r.TraceURL + ")"
	}
	facts := []string{"trace " + trace}
	if r.SessionID != "" {
		facts = append(facts, "session "+code(r.SessionID))
	}
	if r.Model != "" {
		facts = append(facts, "model "+cell(r.Model))
	}
	if r.ExitCode != nil {
		facts = append(facts, fmt.Sprintf("exit status %d", *r.ExitCode))
	}
	b.WriteString(strings.Join(facts, " · ") + "\n\n")
	if r.Error != "" {
		fmt.Fprintf(&b, "**Error:** %s\n\n", cell(r.Error))
	}

	b.WriteString("| where the time went | time | share |\n|---|---:|---:|\n")
	row := func(name string, v int64) {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, dur(v), share(v, r.WallMs))
	}
	row(fmt.Sprintf("model (thinking %s of it)", dur(r.Split.ThinkingMs)), r.Split.ModelMs)
	row("tools", r.Split.ToolsMs)
	row("idle, start-up, reconnects", r.Split.IdleMs)
	fmt.Fprintf(&b, "| **wall time** | **%s** | |\n\n", dur(r.WallMs))

	var notes []string
	if t := r.Tokens; t != nil {
		notes = append(notes, fmt.Sprintf("Tokens: %d in (%d cache read, %d cache write), %d out", t.Input, t.CacheRead, t.CacheCreation, t.Output))
	}
	notes = append(notes, fmt.Sprintf("%d model calls", len(r.ModelCalls)))
	if r.Split.ReconnectingMs > 0 || r.Retries > 0 {
		notes = append(notes, fmt.Sprintf("reconnecting %s, %d retries", dur(r.Split.ReconnectingMs), r.Retries))
	}
	b.WriteString(strings.Join(notes, " · ") + "\n\n")
	if line := r.costLine(); line != "" {
		b.WriteString(line + "\n\n")
	}

	if len(r.Stalls) > 0 {
		b.WriteString("**Stalls**: gaps without output from the agent\n\n| at | silent for | in flight |\n|---:|---:|---|\n")
		for _, s := range r.Stalls {
			fmt.Fprintf(&b, "| +%s | %s | %s |\n", dur(s.StartMs), dur(s.DurationMs), cell(s.InFlight))
		}
		if r.StallTimeoutMs > 0 {
			fmt.Fprintf(&b, "\ncursor-otel stopped the agent after %s without output (--stall-timeout).\n", dur(r.StallTimeoutMs))
		}
		b.WriteString("\n")
	}
	if len(r.ToolKinds) > 0 {
		b.WriteString("| tool | calls | total | p50 | max |\n|---|---:|---:|---:|---:|\n")
		for _, k := range r.ToolKinds {
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |\n", cell(k.Name), k.Count, dur(k.TotalMs), dur(k.P50Ms), dur(k.MaxMs))
		}
		b.WriteString("\n**Slowest tool calls**\n\n| tool | time | what | outcome |\n|---|---:|---|---|\n")
		for _, c := range r.Slowest {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(c.Name), dur(c.DurationMs), code(c.Subject), outcomeCell(c))
		}
		b.WriteString("\n")
	}
	if len(r.Failed) > 0 {
		b.WriteString("**Failed, rejected and unfinished tool calls**\n\n| tool | at | what | outcome |\n|---|---:|---|---|\n")
		for _, c := range r.Failed {
			fmt.Fprintf(&b, "| %s | +%s | %s | %s |\n", cell(c.Name), dur(c.StartMs), code(c.Subject), outcomeCell(c))
		}
		b.WriteString("\n")
	}
	chart, leftOut := r.Gantt()
	b.WriteString("```mermaid\n" + chart + "```\n\n")
	if leftOut != "" {
		b.WriteString(leftOut + "\n\n")
	}
	w := r.waterfall()
	fence := strings.Repeat("`", max(3, longestRun(w, '`')+1)) // a fence the text cannot close
	b.WriteString("<details><summary>Waterfall</summary>\n\n" + fence + "\n" + w + fence + "\n\n</details>\n\n")
	return b.String()
}

// waterfall draws each model call and, under it, its tool calls as bars on
// one time scale.
func (r Report) waterfall() string {
	var b strings.Builder
	scale := func(v int64) int {
		if r.WallMs <= 0 {
			return 0
		}
		return int(float64(v) / float64(r.WallMs) * waterfallWidth)
	}
	bar := func(start, d int64) string {
		// Clamped: a span outside the session's time must not break the
		// report, whatever the clocks did.
		from := min(max(scale(start), 0), waterfallWidth-1)
		to := min(max(scale(start+d), from+1), waterfallWidth)
		return strings.Repeat(" ", from) + strings.Repeat("█", to-from) + strings.Repeat(" ", waterfallWidth-to)
	}
	fmt.Fprintf(&b, "%-14s %-*s %s\n", "", waterfallWidth, "0s", dur(r.WallMs))
	rows := 0
	tools := r.ToolCalls
	for _, mc := range r.ModelCalls {
		if rows >= waterfallRows {
			break
		}
		fmt.Fprintf(&b, "%-14s|%s| %s\n", "model call", bar(mc.StartMs, mc.DurationMs), dur(mc.DurationMs))
		rows++
		end := mc.StartMs + mc.DurationMs
		for len(tools) > 0 && tools[0].StartMs <= end && rows < waterfallRows {
			c := tools[0]
			tools = tools[1:]
			note := oneLine(c.Subject, 40)
			if c.Outcome != "success" {
				note = strings.TrimSpace(note + " " + oneLine(c.Outcome, 16))
			}
			fmt.Fprintf(&b, "  %-12s|%s| %s %s\n", oneLine(c.Name, 12), bar(c.StartMs, c.DurationMs), dur(c.DurationMs), note)
			rows++
		}
	}
	if left := len(r.ModelCalls) + len(r.ToolCalls) - rows; left > 0 {
		fmt.Fprintf(&b, "… %d more\n", left)
	}
	return b.String()
}

// costLine says what the session cost, at which price, and how that
// stands against the budget; "" when there is nothing to say.
func (r Report) costLine() string {
	var line string
	switch {
	case r.CostUSD != nil:
		line = fmt.Sprintf("Cost: %s estimated (%s at %s prices)", pricing.USD(*r.CostUSD), code(r.PricedAs), cell(r.Pricing))
	case r.Pricing == spanmap.Unpriced:
		line = fmt.Sprintf("Cost: unknown, no price table knows the model %s (give its prices with --prices)", code(r.Model))
	case r.BudgetUSD != nil:
		line = "Cost: unknown, the run reported no usage"
	default:
		return ""
	}
	if r.BudgetUSD != nil {
		budget := *r.BudgetUSD
		switch {
		case r.CostUSD == nil:
			line += fmt.Sprintf(" · budget %s: **over**, an unknown cost is not under it", pricing.USD(budget))
		case *r.CostUSD > budget:
			line += fmt.Sprintf(" · budget %s: **over by %s**", pricing.USD(budget), pricing.USD(*r.CostUSD-budget))
		default:
			line += fmt.Sprintf(" · budget %s: within it", pricing.USD(budget))
		}
	}
	return line
}

func outcomeCell(c ToolCall) string {
	out := cell(c.Outcome)
	if c.ExitCode != nil && *c.ExitCode != 0 {
		out += fmt.Sprintf(" (exit %d)", *c.ExitCode)
	}
	if c.Error != "" && c.Outcome != "success" && (c.ExitCode == nil || c.Error != fmt.Sprintf("exit status %d", *c.ExitCode)) {
		out += ": " + cell(c.Error)
	}
	return out
}

// dur formats milliseconds for a table: 0.25s, 9.15s, 14m03s.
func dur(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	if d < time.Minute {
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

func share(part, whole int64) string {
	if whole <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(part)/float64(whole))
}

// cell keeps text on one table row, as text: what Markdown would read as
// a code span, a link, emphasis or raw HTML is escaped.
func cell(s string) string {
	return escapeMarkdown(oneLine(s, 160))
}

// code shows text as a code span on one table row, in a fence of
// backticks longer than any run of them in the text, so that a backtick in
// a command cannot end it.
func code(s string) string {
	if s == "" {
		return ""
	}
	// A pipe ends a table cell even inside a code span unless escaped.
	s = strings.ReplaceAll(oneLine(s, 80), "|", `\|`)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// oneLine keeps text on one line of at most n runes, its control
// characters shown, not acting on whoever reads it in a terminal.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	return trim(visible.Text(s), n)
}

// escapeMarkdown backslash-escapes the characters that would make text
// anything but text in a GitHub Markdown table cell; an underscore inside
// a word (read_file) changes nothing and stays as it is.
func escapeMarkdown(s string) string {
	if !strings.ContainsAny(s, "\\`*_[]<>|&~") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '`', '*', '[', ']', '<', '>', '|', '&', '~':
			b.WriteByte('\\')
		case '_':
			if i == 0 || i == len(s)-1 || !isWordByte(s[i-1]) || !isWordByte(s[i+1]) {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

func trim(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// JSON renders the report as one line of JSON, for scripts comparing runs.
func (r Report) JSON() []byte {
	b, _ := json.Marshal(r)
	return append(b, '\n')
}
