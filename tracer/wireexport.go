package tracer

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
)

// wireExporter sends spans over the OTLP/gRPC connection cursor-otel
// dialed, encoded by wireEncoder instead of the exporter's proto structs.
// Only a batch the collector took is its own: when an export fails
// (the collector down, an error it answered), the batch goes to the OTLP
// exporter, whose retries, back-off and errors are the ones a user
// sees. An export cut off (the caller's deadline, the export timeout)
// is not tried again.
type wireExporter struct {
	conn    *grpc.ClientConn
	std     sdktrace.SpanExporter // the OTLP/gRPC exporter, on the same connection
	timeout time.Duration
	stopped atomic.Bool
	// free are encoders to reuse, one per export that may be in flight:
	// kept, not pooled, so that their buffers outlive a collection.
	free chan *wireEncoder
}

// exportMethod is the OTLP trace service's one method.
const exportMethod = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"

// defaultExportTimeout is the OTLP exporter's own (OTEL_EXPORTER_OTLP_TIMEOUT unset).
const defaultExportTimeout = 10 * time.Second

// wireExportable says whether the variables leave the export as the wire
// exporter makes it: headers, a timeout or the exporter's own telemetry
// set are the OTLP exporter's to apply.
func wireExportable(getenv func(string) string) bool {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
		"OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_GO_X_OBSERVABILITY", "OTEL_GO_X_SELF_OBSERVABILITY"} {
		if strings.TrimSpace(getenv(k)) != "" {
			return false
		}
	}
	return true
}

func newWireExporter(conn *grpc.ClientConn, std sdktrace.SpanExporter) *wireExporter {
	return &wireExporter{conn: conn, std: std, timeout: defaultExportTimeout, free: make(chan *wireEncoder, maxInFlight)}
}

func (e *wireExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	if e.stopped.Load() {
		return e.std.ExportSpans(ctx, spans) // says it is shut down
	}
	var enc *wireEncoder
	select {
	case enc = <-e.free:
	default:
		enc = new(wireEncoder)
	}
	req := wireRequest(enc.request(spans))
	var resp coltracepb.ExportTraceServiceResponse
	ectx, cancel := context.WithTimeout(ctx, e.timeout)
	err := e.conn.Invoke(ectx, exportMethod, &req, &resp, grpc.ForceCodecV2(wireCodec{}))
	cutOff := ectx.Err() != nil
	cancel()
	if err == nil {
		// Answered: the request was sent whole, its bytes are free again.
		// (After a failure gRPC may still hold them: they are left to the
		// garbage collector.)
		select {
		case e.free <- enc:
		default:
		}
		if ps := resp.GetPartialSuccess(); ps != nil && (ps.GetRejectedSpans() != 0 || ps.GetErrorMessage() != "") {
			msg := ps.GetErrorMessage()
			if msg == "" {
				msg = "empty message"
			}
			return fmt.Errorf("traces export: OTLP partial success: %s (%d spans rejected)", msg, ps.GetRejectedSpans())
		}
		return nil
	}
	if cutOff {
		return fmt.Errorf("traces export: %w", err)
	}
	return e.std.ExportSpans(ctx, spans)
}

func (e *wireExporter) Shutdown(ctx context.Context) error {
	e.stopped.Store(true)
	return e.std.Shutdown(ctx)
}

// wireRequest is an encoded ExportTraceServiceRequest.
type wireRequest []byte

// wireCodec sends a wireRequest as it is and reads the answer as the proto
// codec does. Named "proto", it is the content type collectors expect.
type wireCodec struct{}

func (wireCodec) Name() string { return "proto" }

func (wireCodec) Marshal(v any) (mem.BufferSlice, error) {
	if r, ok := v.(*wireRequest); ok {
		return mem.BufferSlice{mem.SliceBuffer(*r)}, nil
	}
	return encoding.GetCodecV2("proto").Marshal(v)
}

func (wireCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return encoding.GetCodecV2("proto").Unmarshal(data, v)
}
