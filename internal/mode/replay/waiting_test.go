package replay

import (
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/tracer"
)

func TestWaitingLine(t *testing.T) {
	for _, tt := range []struct {
		w    tracer.Waiting
		want string
	}{
		{tracer.Waiting{Taken: 40000, Spans: 102678, SinceAnswer: 290 * time.Millisecond, Endpoint: "http://collector:4317"},
			"cursor-otel: waiting for the collector at http://collector:4317: 40,000 of 102,678 spans taken, last answer 0.3s ago"},
		{tracer.Waiting{Taken: 0, Spans: 999, Endpoint: "localhost:4317"},
			"cursor-otel: waiting for the collector at localhost:4317: 0 of 999 spans taken, no answer yet"},
		{tracer.Waiting{Taken: 1000, Spans: 1234567, SinceAnswer: 2 * time.Second, Endpoint: "localhost:4317"},
			"cursor-otel: waiting for the collector at localhost:4317: 1,000 of 1,234,567 spans taken, last answer 2.0s ago"},
	} {
		if got := waitingLine(tt.w); got != tt.want {
			t.Errorf("waitingLine(%+v) =\n%q\nwant\n%q", tt.w, got, tt.want)
		}
	}
}
