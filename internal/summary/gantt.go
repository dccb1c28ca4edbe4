package summary

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/cursor-otel/cursor-otel/internal/oneline"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

// ChartBars is the most model and tool calls a session's chart draws: a
// longer session's chart shows every failure and the slowest calls, and
// says what it left out.
const ChartBars = 50

// chartSubject is the most runes of a command or path a bar's label shows.
const chartSubject = 48

// bar is one model or tool call on the chart.
type bar struct {
	model   int // index in ModelCalls of the call, or of the call that issued the tool; -1 for none
	tool    int // index in ToolCalls; -1 for a model call
	startMs int64
	durMs   int64
	failed  bool
}

// bars are the report's calls, the chart's share of them when there are
// more than ChartBars: failures first, then the slowest.
func (r Report) bars() (kept, left []bar) {
	var all []bar
	for i, mc := range r.ModelCalls {
		all = append(all, bar{model: i, tool: -1, startMs: mc.StartMs, durMs: mc.DurationMs, failed: mc.Error != ""})
	}
	for i, tc := range r.ToolCalls {
		model := tc.ModelCall
		if model < 0 || model >= len(r.ModelCalls) {
			model = -1
		}
		all = append(all, bar{model: model, tool: i, startMs: tc.StartMs, durMs: tc.DurationMs, failed: tc.Outcome != spanmap.OutcomeSuccess})
	}
	if len(all) <= ChartBars {
		return all, nil
	}
	slices.SortStableFunc(all, func(a, b bar) int {
		if a.failed != b.failed {
			if a.failed {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.durMs, a.durMs)
	})
	return all[:ChartBars], all[ChartBars:]
}

// Gantt is the session as a Mermaid gantt chart: the session, then a
// section for each model call with its bar and the bars of the tool calls
// it issued, on an axis of seconds, minutes or hours from the session's
// start; failed calls are marked crit, rejected ones done. With it comes
// a line saying what the chart left out, or "".
func (r Report) Gantt() (chart, leftOut string) {
	kept, left := r.bars()
	ax := chartAxis(max(r.WallMs, latestEnd(kept)))
	var b strings.Builder
	b.WriteString("gantt\n")
	fmt.Fprintf(&b, "    accTitle: cursor-agent session of %s\n", dur(r.WallMs))
	b.WriteString("    dateFormat x\n")
	fmt.Fprintf(&b, "    axisFormat %s\n    tickInterval %s\n    todayMarker off\n", ax.format, ax.tick)
	task := func(label, tags string, start, d int64) {
		start = max(start, 0)
		if tags != "" {
			tags += ", "
		}
		fmt.Fprintf(&b, "    %s :%s%d, %dms\n", label, tags, ax.at(start), ax.at(start+max(d, 0))-ax.at(start))
	}
	b.WriteString("    section session\n")
	if r.Outcome == "success" {
		task(dur(r.WallMs)+" session", "", 0, r.WallMs)
	} else {
		task(dur(r.WallMs)+" session (failed)", "crit", 0, r.WallMs)
	}

	// Drawn in time order: the model calls as the report has them, each
	// with its tools; tools of no model call (-1, the largest uint) last.
	slices.SortFunc(kept, func(a, b bar) int {
		return cmp.Or(cmp.Compare(uint(a.model), uint(b.model)), cmp.Compare(a.tool, b.tool))
	})
	section := -2
	for _, k := range kept {
		if k.model != section {
			section = k.model
			if section < 0 {
				b.WriteString("    section other tools\n")
			} else {
				name := fmt.Sprintf("model call %d", section+1)
				if r.ModelCalls[section].Subagent {
					name = fmt.Sprintf("subagent call %d", section+1)
				}
				b.WriteString("    section " + name + "\n")
			}
		}
		if k.tool < 0 {
			mc := r.ModelCalls[k.model]
			label := barLabel(dur(mc.DurationMs), cmp.Or(mermaidText(mc.Model, 32), mermaidText(r.Model, 32), "model"))
			tags := "active"
			if mc.Error != "" {
				label += " (" + cmp.Or(mermaidText(mc.ErrorType, 24), "error") + ")"
				tags = "active, crit"
			}
			task(label, tags, k.startMs, k.durMs)
			continue
		}
		tc := r.ToolCalls[k.tool]
		label := barLabel(dur(tc.DurationMs), mermaidText(tc.Name, 24), mermaidText(tc.Subject, chartSubject))
		tags := ""
		switch tc.Outcome {
		case spanmap.OutcomeSuccess:
		case spanmap.OutcomeRejected:
			tags = "done"
		default:
			tags = "crit"
		}
		if tc.Outcome != spanmap.OutcomeSuccess {
			note := cmp.Or(mermaidText(tc.Outcome, 16), "error")
			if tc.ExitCode != nil && *tc.ExitCode != 0 {
				note += fmt.Sprintf(", exit %d", *tc.ExitCode)
			}
			label += " (" + note + ")"
		}
		task(label, tags, k.startMs, k.durMs)
	}
	return b.String(), leftOutLine(r, left)
}

// barLabel joins a bar's parts with a space each, leaving out those with
// nothing to show (a name of blanks): a label never ends in a blank,
// which Mermaid would read as part of the bar's settings.
func barLabel(parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), " ")
}

// leftOutLine says which calls the chart left out: how many, how long
// the longest of them took, and how many of them failed.
func leftOutLine(r Report, left []bar) string {
	if len(left) == 0 {
		return ""
	}
	var models, tools, failed int
	var longest int64
	for _, l := range left {
		if l.tool < 0 {
			models++
		} else {
			tools++
		}
		if l.failed {
			failed++
		}
		longest = max(longest, l.durMs)
	}
	var parts []string
	if models > 0 {
		parts = append(parts, oneline.Count(models, "model call"))
	}
	if tools > 0 {
		parts = append(parts, oneline.Count(tools, "tool call"))
	}
	line := fmt.Sprintf("The chart shows %d of the %d calls: every failed one and the slowest. Left out: %s, each %s or shorter",
		ChartBars, len(r.ModelCalls)+len(r.ToolCalls), strings.Join(parts, " and "), dur(longest))
	if failed > 0 {
		line += fmt.Sprintf(", %d of them failed", failed)
	}
	return line + "."
}

func latestEnd(bars []bar) int64 {
	var end int64
	for _, b := range bars {
		end = max(end, b.startMs+b.durMs)
	}
	return end
}

// axis is the chart's time axis. Mermaid formats its ticks as the time of
// day where the page is viewed; the chart counts from the Unix epoch and
// labels its ticks with %s, the seconds since it, which reads the same in
// every time zone. A session of minutes or hours is drawn at 1/60 or
// 1/3600 of its pace, so that those seconds count its minutes or hours.
type axis struct {
	scale  int64  // real milliseconds a chart millisecond stands for
	format string // axisFormat
	tick   string // tickInterval
}

func (a axis) at(ms int64) int64 { return (ms + a.scale/2) / a.scale }

// chartAxis picks the unit and the tick step for a session of wallMs:
// seconds up to three minutes, minutes up to ten hours, then hours; at
// most about ten ticks.
func chartAxis(wallMs int64) axis {
	const maxTicks = 10
	step := func(span int64, steps []int64) int64 {
		for _, s := range steps {
			if span <= s*maxTicks {
				return s
			}
		}
		s := steps[len(steps)-1]
		for span > s*maxTicks {
			s *= 10
		}
		return s
	}
	switch {
	case wallMs <= 3*60_000:
		s := step(wallMs, []int64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 20_000, 30_000})
		if s < 1000 {
			return axis{1, "%s.%Ls", fmt.Sprintf("%dmillisecond", s)}
		}
		return axis{1, "%ss", fmt.Sprintf("%dsecond", s/1000)}
	case wallMs <= 10*3_600_000:
		s := step((wallMs+59_999)/60_000, []int64{1, 2, 5, 10, 15, 20, 30, 60})
		return axis{60, "%sm", fmt.Sprintf("%dsecond", s)}
	default:
		s := step((wallMs+3_599_999)/3_600_000, []int64{1, 2, 5, 10, 20, 50})
		return axis{3600, "%sh", fmt.Sprintf("%dsecond", s)}
	}
}
