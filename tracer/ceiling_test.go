package tracer

import (
	"context"
	"fmt"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// BenchmarkExportCeiling is what the SDK and its OTLP/gRPC exporter cost
// a span with nothing of cursor-otel's around them: spans made, ended and
// exported by this package's provider to a counting receiver in this
// process, as replay exports them. Spans carry 9 attributes, the average
// of a replayed CI archive, or none. It is the per-span cost, warm and in
// one process, for benchstat; bench/floor measures the same work as a
// program of its own exporting to another, as the bench measures replay.
func BenchmarkExportCeiling(b *testing.B) {
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", "shell"),
		attribute.String("gen_ai.tool.call.id", "toolu_01ABCDEFGHJKMNPQRSTVWXYZ"),
		attribute.String("gen_ai.conversation.id", "5b4450f4-3204-42b1-b082-844f859df8c3"),
		attribute.String("cursor.tool.status", "completed"),
		attribute.Int("cursor.tool.exit_code", 0),
		attribute.String("cursor.tool.command", "go test ./..."),
		attribute.Int("cursor.tool.output_bytes", 2048),
		attribute.String("cursor.model_call.id", "a1b2c3d4-0000-4000-8000-000000000001"),
	}
	for _, exporter := range []string{"none", "otlp"} {
		for _, n := range []int{0, len(attrs)} {
			b.Run(fmt.Sprintf("exporter=%s/attributes=%d", exporter, n), func(b *testing.B) {
				recv := otlptest.StartGRPC(b)
				recv.CountOnly()
				// The OTLP exporters read the process environment.
				b.Setenv("OTEL_TRACES_EXPORTER", exporter)
				b.Setenv("OTEL_METRICS_EXPORTER", "none")
				b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.Endpoint)
				ctx := context.Background()
				p, err := New(ctx, Config{})
				if err != nil {
					b.Fatal(err)
				}
				t := p.Tracer()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					_, s := t.Start(ctx, "execute_tool shell")
					s.SetAttributes(attrs[:n]...)
					s.End()
				}
				if r := p.Shutdown(ctx); r.Warning() != "" {
					b.Fatal(r.Warning())
				}
				b.StopTimer()
				if exporter == "otlp" && recv.SpanCount() != b.N {
					b.Fatalf("%d of %d spans arrived", recv.SpanCount(), b.N)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "spans/s")
			})
		}
	}
}
