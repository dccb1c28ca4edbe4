package tracer

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// wireMetricExporter sends metrics over the OTLP/gRPC connection
// cursor-otel dialed, encoded by appendMetricsRequest instead of the
// exporter's proto structs, as wireExporter does spans. The OTLP/gRPC
// metric exporter, on the same connection, says the temporality and
// aggregation, and takes what this one leaves: metrics it does not
// encode, and an export that failed (the collector down, an error it
// answered), whose retries and errors are then the ones a user sees. An
// export cut off (the caller's deadline, the export timeout) is not tried
// again.
type wireMetricExporter struct {
	sdkmetric.Exporter
	conn    *grpc.ClientConn
	stopped atomic.Bool

	mu  sync.Mutex // one export encodes at a time, into buf
	buf []byte
}

// metricsExportMethod is the OTLP metrics service's one method.
const metricsExportMethod = "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export"

func newWireMetricExporter(conn *grpc.ClientConn, std sdkmetric.Exporter) *wireMetricExporter {
	return &wireMetricExporter{Exporter: std, conn: conn}
}

func (e *wireMetricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	if e.stopped.Load() {
		return e.Exporter.Export(ctx, rm) // says it is shut down
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	b, ok := appendMetricsRequest(e.buf[:0], rm)
	if !ok {
		return e.Exporter.Export(ctx, rm)
	}
	answered, cutOff, err := wireSend(ctx, e.conn, metricsExportMethod, b, defaultExportTimeout, "metric data points")
	switch {
	case answered:
		e.buf = b // sent whole: its bytes are free again
	case cutOff || status.Code(err) == codes.Unimplemented:
		// Cut off, or a collector that takes no metrics (Jaeger): asking
		// again through the exporter would only wait, or be refused again.
		e.buf = nil // gRPC may still hold the bytes
	default:
		e.buf = nil
		return e.Exporter.Export(ctx, rm)
	}
	if err != nil {
		return fmt.Errorf("failed to upload metrics: %w", err)
	}
	return nil
}

func (e *wireMetricExporter) Shutdown(ctx context.Context) error {
	e.stopped.Store(true)
	return e.Exporter.Shutdown(ctx)
}
