package tracer

import (
	"errors"
	"testing"
	"time"
)

func TestWarning(t *testing.T) {
	down := errors.New(`traces export: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:4317: connect: connection refused"`)
	for _, tt := range []struct {
		name string
		r    ExportReport
		want string
	}{
		{"all exported", ExportReport{Spans: 3, Exported: 3}, ""},
		{"default endpoint down", ExportReport{Spans: 3, Endpoint: "localhost:4317", Err: down},
			"cursor-otel: no collector reached at localhost:4317 (connection refused); 3 of 3 spans not exported. Start Jaeger with: docker compose up -d"},
		{"named endpoint timed out", ExportReport{Spans: 9, Exported: 4, Endpoint: "http://c:4317", UserEndpoint: true, Err: ErrFlushTimeout},
			"cursor-otel: export to http://c:4317 failed: flush timed out; 5 of 9 spans not exported"},
		{"sent, and no answer before the deadline", ExportReport{Spans: 11, Unconfirmed: 11, Endpoint: "http://c:4317", UserEndpoint: true, FlushTimeout: 3 * time.Second},
			"cursor-otel: export to http://c:4317: no answer within the 3s flush timeout for 11 of 11 spans (they may have arrived)"},
		{"some sent, some not", ExportReport{Spans: 11, Exported: 4, Unconfirmed: 3, Endpoint: "http://c:4317", UserEndpoint: true, Err: ErrFlushTimeout, FlushTimeout: time.Second},
			"cursor-otel: export to http://c:4317 failed: flush timed out; 4 of 11 spans not exported, no answer within the 1s flush timeout for 3 more"},
		{"not kept, said how to send again", ExportReport{Spans: 11, Endpoint: "localhost:4317", Err: down, SpoolDir: "/spool", Again: "replay the file again"},
			"cursor-otel: no collector reached at localhost:4317 (connection refused); 11 of 11 spans not exported, not kept: replay the file again. Start Jaeger with: docker compose up -d"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Warning(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
