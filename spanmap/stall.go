package spanmap

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
)

// output notes output at t (live: when a line was read; in replay: an
// event's own time), recording the gap before it if it was a stall.
func (s *session) output(t time.Time) {
	if t.IsZero() {
		return
	}
	if after := s.rec.opts.StallAfter; after > 0 && !s.activity.IsZero() && t.Sub(s.activity) > after {
		s.stall(s.activity, t)
	}
	s.activity = later(s.activity, t)
}

func (s *session) stall(from, to time.Time) {
	d := to.Sub(from)
	s.stalls++
	s.longestStall = max(s.longestStall, d)
	s.span.addEvent(EventStall, from, StallDurationMs.Int64(d.Milliseconds()), StallInFlight.String(s.inFlight()))
}

// inFlight says what the agent was busy with: the tool calls open, else
// the model call under way (still waiting for its first output, or not),
// else nothing ("between steps").
func (s *session) inFlight() string {
	if len(s.tools) > 0 {
		open := make([]*toolCall, 0, len(s.tools))
		for _, tc := range s.tools {
			open = append(open, tc)
		}
		slices.SortFunc(open, func(a, b *toolCall) int { return cmp.Or(a.start.Compare(b.start), cmp.Compare(a.call.ID, b.call.ID)) })
		tc := open[0]
		what := "tool " + cmp.Or(tc.call.Name, "unknown")
		if subject := cmp.Or(tc.call.Facts.Command, tc.call.Facts.Path, tc.call.Facts.Pattern, tc.call.Facts.URL, tc.call.Facts.Query); subject != "" {
			what += ": " + s.rec.text(subject, 120)
		}
		if len(open) > 1 {
			what += fmt.Sprintf(" (and %d more)", len(open)-1)
		}
		return what
	}
	if mc := s.current; mc != nil && !mc.done {
		if !mc.hasOutput() {
			return "model call, waiting for its first output"
		}
		return "model call"
	}
	return "between steps"
}

// stallAttributes are the session's stall figures.
func (s *session) stallAttributes() []attribute.KeyValue {
	if s.stalls == 0 {
		return nil
	}
	return []attribute.KeyValue{Stalls.Int(s.stalls), StallLongestMs.Int64(s.longestStall.Milliseconds())}
}
