package spanmap

import (
	"fmt"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// stallEvents are the session's cursor.stall events: when, how long, what.
func stallEvents(t *testing.T, spans tracetest.SpanStubs, origin time.Time) []string {
	t.Helper()
	var out []string
	for _, e := range spansNamed(spans, OpInvokeAgent)[0].Events {
		if e.Name != EventStall {
			continue
		}
		var d int64
		var what string
		for _, a := range e.Attributes {
			switch a.Key {
			case StallDurationMs:
				d = a.Value.AsInt64()
			case StallInFlight:
				what = a.Value.AsString()
			}
		}
		out = append(out, fmt.Sprintf("+%v %v %s", e.Time.Sub(origin), time.Duration(d)*time.Millisecond, what))
	}
	return out
}

// Live, a gap between two lines read longer than the threshold is a
// stall, with what was in flight: the tool call open then; the silence
// before the agent's exit too. A shorter gap is none.
func TestStallsLive(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	rec, exp := newTestRecorder(Options{StallAfter: 3 * time.Minute})
	rec.Begin(trace.SpanContext{}, t0)
	lines := []struct {
		read time.Duration
		line string
	}{
		{time.Second, `{"type":"system","subtype":"init","session_id":"s","model":"Auto"}`},
		{2 * time.Second, `{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"go test ./..."}}},"session_id":"s"}`},
		{12 * time.Minute, `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"go test ./..."},"result":{"success":{"exitCode":0}}}},"session_id":"s"}`},
		{12*time.Minute + 2*time.Minute, `{"type":"assistant","message":{"content":"done"},"session_id":"s"}`},
		{12*time.Minute + 3*time.Minute, `{"type":"result","subtype":"success","result":"done","session_id":"s"}`},
	}
	for i, l := range lines {
		rec.Record(decodeLine([]byte(l.line), i+1), t0.Add(l.read))
	}
	rec.Finish(End{Time: t0.Add(25 * time.Minute)})
	got := stallEvents(t, exp.GetSpans(), t0)
	want := []string{"+2s 11m58s tool shell: go test ./...", "+15m0s 10m0s between steps"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stalls\n %q\nwant\n %q", got, want)
	}
	session := spansNamed(exp.GetSpans(), OpInvokeAgent)[0]
	if attr(session, Stalls) != "2" || attr(session, StallLongestMs) != "718000" || session.Status.Code == codes.Error {
		t.Errorf("session: %s stalls, longest %s ms, status %v", attr(session, Stalls), attr(session, StallLongestMs), session.Status)
	}
}

// In replay the stream's own times tell the gaps; a model call that has
// said nothing yet is waiting for its first output. No threshold, no stalls.
func TestStallsReplay(t *testing.T) {
	stream := `{"type":"system","subtype":"init","session_id":"s","model":"Auto"}
{"type":"thinking","subtype":"delta","text":"a","session_id":"s","model_call_id":"m1","timestamp_ms":1790000000000}
{"type":"thinking","subtype":"completed","session_id":"s","model_call_id":"m1","timestamp_ms":1790000001000}
{"type":"assistant","message":{"content":"x"},"session_id":"s","model_call_id":"m1","timestamp_ms":1790000002000}
{"type":"assistant","message":{"content":"late"},"session_id":"s","model_call_id":"m2","timestamp_ms":1790000400000}
{"type":"result","subtype":"success","result":"done","session_id":"s","timestamp_ms":1790000401000}
`
	for _, after := range []time.Duration{0, 3 * time.Minute} {
		rec, exp := newTestRecorder(Options{StallAfter: after, Now: func() time.Time { return replayTime }})
		recordString(rec, stream)
		rec.Finish(End{})
		got := stallEvents(t, exp.GetSpans(), time.UnixMilli(1790000000000))
		want := []string{}
		if after > 0 {
			want = []string{"+2s 6m38s model call"}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("threshold %v: stalls %q, want %q", after, got, want)
		}
	}
}

// An agent stopped for --stall-timeout: the silence before the end is a
// stall, and the session failed for it, before the exit status it got.
func TestStallTimeout(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	rec, exp := newTestRecorder(Options{StallAfter: 10 * time.Minute})
	rec.Begin(trace.SpanContext{}, t0)
	rec.Record(decodeLine([]byte(`{"type":"system","subtype":"init","session_id":"s","model":"Auto"}`), 1), t0.Add(time.Second))
	code := 143
	rec.Finish(End{Time: t0.Add(2*time.Minute + time.Second), ExitCode: &code, StallTimeout: 2 * time.Minute})
	session := spansNamed(exp.GetSpans(), OpInvokeAgent)[0]
	got := stallEvents(t, exp.GetSpans(), t0)
	if fmt.Sprint(got) != fmt.Sprint([]string{"+1s 2m0s between steps"}) {
		t.Errorf("stalls %q", got)
	}
	if attr(session, ErrorType) != ErrStallTimeout || session.Status.Description != "no output for 2m0s: cursor-otel stopped the agent (--stall-timeout); stream ended without a result; agent exited with status 143" ||
		attr(session, StallTimeout) != "120000" {
		t.Errorf("session: error.type %q, status %q, timeout %s", attr(session, ErrorType), session.Status.Description, attr(session, StallTimeout))
	}
}
