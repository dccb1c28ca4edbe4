package spanmap

import "time"

// clock places one session's events in time. Each session has its own: a
// second session in a stream never takes the first one's times.
//
// In replay an event's time is the stream's own (a tool's startedAtMs and
// completedAtMs, else timestamp_ms); an event without one takes the
// latest time the session has shown, and one before any such time waits
// for the first.
//
// Live (wrap mode), an event without a time of its own is placed when its
// line was read, and the stream's times, which are the agent's clock, are
// moved onto cursor-otel's by the difference seen at the session's first
// timed event, and kept between the session's start and the moment the
// line was read: an agent's clock a few seconds off changes no duration,
// and no event lands before its session or after it was read.
type clock struct {
	live      bool
	shift     time.Duration // added to the stream's times in replay (replay --now)
	offset    time.Duration // the agent's clock to cursor-otel's, live
	offsetSet bool
	floor     time.Time // no event before it: the session's start, when fixed
	latest    time.Time // the latest time the session has shown
}

// place returns the time of an event whose own time is stream (zero when
// it has none) and which was read at readAt (zero in replay). measured
// says the time is the event's own (from the stream or, live, when it was
// read), not inherited from the events before it; ok is false when no
// time is known yet.
func (c *clock) place(stream, readAt time.Time) (t time.Time, measured, ok bool) {
	switch {
	case c.live && !stream.IsZero():
		t, measured = c.agentTime(stream, readAt), true
	case c.live:
		t, measured = readAt, true
	case !stream.IsZero():
		t, measured = stream.Add(c.shift), true
	default:
		t = c.latest
	}
	if t.IsZero() {
		return t, false, false
	}
	if c.live && t.Before(c.floor) {
		t = c.floor
	}
	if t.After(c.latest) {
		c.latest = t
	}
	return t, measured, true
}

// agentTime is a time of the agent's clock (a tool's startedAtMs, say)
// on cursor-otel's: live, by the session's offset, bounded by when its
// line was read; in replay, as it is (shifted, if asked).
func (c *clock) agentTime(stream, readAt time.Time) time.Time {
	if stream.IsZero() {
		return stream
	}
	if !c.live {
		return stream.Add(c.shift)
	}
	if !c.offsetSet {
		c.offset, c.offsetSet = readAt.Sub(stream), true
	}
	t := stream.Add(c.offset)
	if t.After(readAt) {
		t = readAt
	}
	if t.Before(c.floor) {
		t = c.floor
	}
	return t
}
