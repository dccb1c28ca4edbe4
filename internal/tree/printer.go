// Package tree prints finished traces as indented text for a terminal:
// each span under its parent, with its offset from the trace's start, its
// duration, what it did and how it ended.
package tree

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/pricing"
	"github.com/cursor-otel/cursor-otel/internal/visible"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

// row is one line of the tree before it is aligned.
type row struct {
	offset, duration time.Duration
	name, detail     string
}

// Print writes one trace as a tree; finished is false for a trace whose
// root never ended. A write error is ignored: a closed stdout is no reason
// to fail the trace.
func Print(w io.Writer, spans []sdktrace.ReadOnlySpan, finished bool) {
	children := map[trace.SpanID][]sdktrace.ReadOnlySpan{}
	ids := map[trace.SpanID]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID()] = true
	}
	var tops []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if parent := s.Parent().SpanID(); s.Parent().IsValid() && ids[parent] {
			children[parent] = append(children[parent], s)
		} else {
			tops = append(tops, s)
		}
	}
	byStart := func(a, b sdktrace.ReadOnlySpan) int {
		return cmp.Or(a.StartTime().Compare(b.StartTime()), strings.Compare(a.Name(), b.Name()))
	}
	slices.SortFunc(tops, byStart)
	if len(tops) == 0 {
		return
	}
	origin := tops[0].StartTime()
	var rows []row
	var walk func(s sdktrace.ReadOnlySpan, depth int)
	walk = func(s sdktrace.ReadOnlySpan, depth int) {
		rows = append(rows, row{
			offset:   s.StartTime().Sub(origin),
			duration: s.EndTime().Sub(s.StartTime()),
			name:     strings.Repeat("  ", depth) + visible.Line(s.Name()),
			detail:   visible.Line(detail(s)),
		})
		kids := children[s.SpanContext().SpanID()]
		slices.SortFunc(kids, byStart)
		for _, k := range kids {
			walk(k, depth+1)
		}
	}
	for _, s := range tops {
		walk(s, 0)
	}

	header := "trace " + tops[0].SpanContext().TraceID().String()
	if conv := value(tops[0], spanmap.ConversationID); conv != "" {
		header += "  session " + visible.Line(conv)
	}
	if !finished {
		header += "  (not finished)"
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r.name))
	}
	width = min(width, 48)
	var b strings.Builder
	b.WriteString(header + "\n")
	for _, r := range rows {
		line := fmt.Sprintf("  %8s %8s  %-*s  %s", "+"+seconds(r.offset), seconds(r.duration), width, r.name, r.detail)
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	b.WriteString("\n")
	_, _ = io.WriteString(w, b.String())
}

// detail says in a few words what a span did and how it ended.
func detail(s sdktrace.ReadOnlySpan) string {
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	switch value(s, spanmap.OperationName) {
	case spanmap.OpInvokeAgent:
		if in, out := value(s, spanmap.InputTokens), value(s, spanmap.OutputTokens); in != "" {
			add("%s in / %s out tokens", in, out)
		}
		if cost := spanmap.Value(s.Attributes(), spanmap.CostUSD); cost.Type() == attribute.FLOAT64 {
			add("%s", pricing.USD(cost.AsFloat64()))
		} else if value(s, spanmap.CostPricing) == spanmap.Unpriced {
			add("cost unknown (model unpriced)")
		}
		if n := value(s, spanmap.InvalidLines); n != "" {
			add("%s unreadable lines", n)
		}
		if code := value(s, spanmap.ExitCode); code != "" {
			add("exit %s", code)
		}
	case spanmap.OpChat:
		if ms := spanmap.Value(s.Attributes(), spanmap.ThinkingMs); ms.Type() == attribute.INT64 {
			add("thinking %s", seconds(time.Duration(ms.AsInt64())*time.Millisecond))
		}
	case spanmap.OpExecuteTool:
		if subject := spanmap.ToolSubject(s.Attributes()); subject != "" {
			add("%s", oneLine(subject, 60))
		}
		if code := value(s, spanmap.ToolExitCode); code != "" {
			add("exit %s", code)
		}
		if o := value(s, spanmap.ToolOutcome); o == spanmap.OutcomeRejected || o == spanmap.OutcomeIncomplete {
			add("%s", o)
		}
	}
	if st := s.Status(); st.Code == codes.Error {
		if code := value(s, spanmap.ToolExitCode); st.Description == "exit status "+code {
			add("ERROR") // the exit code is already on the line
		} else {
			add("ERROR %s", oneLine(st.Description, 80))
		}
	}
	return strings.Join(parts, "  ")
}

func value(s sdktrace.ReadOnlySpan, k attribute.Key) string {
	return spanmap.Value(s.Attributes(), k).String()
}

// seconds formats a duration for a column: 0.25s, 9.15s, 14m03s.
func seconds(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// oneLine keeps a value on one line and at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
