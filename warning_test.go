package main

import (
	"errors"
	"testing"

	"github.com/cursor-otel/cursor-otel/tracer"
)

func TestOneLine(t *testing.T) {
	for _, tt := range []struct {
		notes []string
		want  string
	}{
		{nil, ""},
		{[]string{"", ""}, ""},
		{[]string{"cursor-otel: no collector reached at localhost:4317 (Unavailable: connection refused); 3 of 3 spans not exported"},
			"cursor-otel: no collector reached at localhost:4317 (Unavailable: connection refused); 3 of 3 spans not exported"},
		{[]string{"tracing fell behind the agent's output; 12.0 MB of it not traced", "", "cursor-otel: export to http://c:4317 failed: flush timed out after 3s; 5 of 9 spans not exported"},
			"cursor-otel: tracing fell behind the agent's output; 12.0 MB of it not traced; export to http://c:4317 failed: flush timed out after 3s; 5 of 9 spans not exported"},
	} {
		if got := oneLine(tt.notes...); got != tt.want {
			t.Errorf("oneLine(%q) = %q, want %q", tt.notes, got, tt.want)
		}
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{12: "12 bytes", 1500: "1.5 kB", 128_700_000: "128.7 MB", 2_500_000_000: "2.5 GB"} {
		if got := size(n); got != want {
			t.Errorf("size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestExportWarning(t *testing.T) {
	down := errors.New(`traces export: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:4317: connect: connection refused"`)
	for _, tt := range []struct {
		name string
		r    tracer.Report
		want string
	}{
		{"all exported", tracer.Report{Spans: 3, Exported: 3}, ""},
		{"default endpoint down", tracer.Report{Spans: 3, Endpoint: "localhost:4317", Err: down},
			"cursor-otel: no collector reached at localhost:4317 (connection refused); 3 of 3 spans not exported. Start Jaeger with: docker compose up -d"},
		{"named endpoint timed out", tracer.Report{Spans: 9, Exported: 4, Endpoint: "http://c:4317", UserEndpoint: true, Err: tracer.ErrFlushTimeout},
			"cursor-otel: export to http://c:4317 failed: flush timed out; 5 of 9 spans not exported"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := exportWarning(tt.r); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
