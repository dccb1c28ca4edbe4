package collector

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// The local collector (docker compose --profile collector) runs as
// shipped: a failed session and a kept one reach the trace store whole,
// over gRPC and HTTP, and its Prometheus endpoints serve cursor-otel's
// metrics and the span metrics.
func TestLocalCollector(t *testing.T) {
	store := otlptest.StartGRPC(t)
	c := newCollector(t, "local", "local.yaml", map[string]string{
		"OTLP_GRPC_ENDPOINT":              addr(freePort(t)),
		"OTLP_HTTP_ENDPOINT":              addr(freePort(t)),
		"PROMETHEUS_ENDPOINT":             addr(freePort(t)),
		"SPANMETRICS_PROMETHEUS_ENDPOINT": addr(freePort(t)),
		"TRACE_STORE_ENDPOINT":            strings.TrimPrefix(store.Endpoint, "http://"),
		"SAMPLING_PERCENTAGE":             "100",
	})
	c.start(t)
	failed := replayRun("examples/failed-run.ndjson", true, false).start(t, "http://"+c.env["OTLP_GRPC_ENDPOINT"], "grpc", nil)
	kept := replayRun("examples/parallel-tools.ndjson", false, false).start(t, "http://"+c.env["OTLP_HTTP_ENDPOINT"], "http/protobuf", nil)
	for end := time.Now().Add(time.Minute); !sessionIn(store, failed) || !sessionIn(store, kept); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the sessions did not reach the trace store whole: %d spans there", store.SpanCount())
		}
	}
	for v, series := range map[string]string{"PROMETHEUS_ENDPOINT": "cursor_sessions_total{", "SPANMETRICS_PROMETHEUS_ENDPOINT": "traces_span_metrics_calls_total{"} {
		for end := time.Now().Add(time.Minute); !strings.Contains(scrape(t, c.env[v]), series); time.Sleep(time.Second) {
			if time.Now().After(end) {
				t.Fatalf("%s serves no %s", v, series)
			}
		}
	}
}

// scrape is what a Prometheus endpoint serves now.
func scrape(t *testing.T, hostport string) string {
	t.Helper()
	resp, err := http.Get("http://" + hostport + "/metrics")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
