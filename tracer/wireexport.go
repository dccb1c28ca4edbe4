package tracer

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
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

// wireExportable says whether the variables leave the export of signal
// (TRACES, METRICS) as the wire exporters make it: headers, a timeout or
// the exporter's own telemetry set are the OTLP exporter's to apply.
func wireExportable(getenv func(string) string, signal string) bool {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_" + signal + "_HEADERS",
		"OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_" + signal + "_TIMEOUT", "OTEL_GO_X_OBSERVABILITY", "OTEL_GO_X_SELF_OBSERVABILITY"} {
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
	answered, cutOff, err := wireSend(ctx, e.conn, exportMethod, enc.request(spans), e.timeout, "spans")
	if answered {
		// The request was sent whole: its bytes are free again. (After a
		// failure gRPC may still hold them: they are left to the garbage
		// collector.)
		select {
		case e.free <- enc:
		default:
		}
	}
	if answered || cutOff {
		if err != nil {
			return fmt.Errorf("traces export: %w", err)
		}
		return nil
	}
	return e.std.ExportSpans(ctx, spans)
}

// wireSend sends req, an encoded export request, as method on conn within
// timeout. answered says the collector took the request: err is then its
// partial success, if it said one (kind names what it rejected), or an
// answer that cannot be read. Otherwise err is why it failed, and cutOff
// says the deadline ended it.
func wireSend(ctx context.Context, conn *grpc.ClientConn, method string, req wireRequest, timeout time.Duration, kind string) (answered, cutOff bool, err error) {
	var resp wireAnswer
	ectx, cancel := context.WithTimeout(ctx, timeout)
	err = conn.Invoke(ectx, method, &req, &resp, grpc.ForceCodecV2(wireCodec{}))
	cutOff = ectx.Err() != nil
	cancel()
	if err != nil {
		return false, cutOff, err
	}
	rejected, msg, err := resp.partialSuccess()
	if err == nil && (rejected != 0 || msg != "") {
		err = partialSuccess{msg, rejected, kind}
	}
	return true, false, err
}

func (e *wireExporter) Shutdown(ctx context.Context) error {
	e.stopped.Store(true)
	return e.std.Shutdown(ctx)
}

// wireRequest is an encoded ExportTraceServiceRequest.
type wireRequest []byte

// partialSuccess is an answer that says some items were rejected, said as
// the OTLP exporters say it.
type partialSuccess struct {
	msg      string
	rejected int64
	kind     string // spans, metric data points
}

func (p partialSuccess) Error() string {
	msg := p.msg
	if msg == "" {
		msg = "empty message"
	}
	return fmt.Sprintf("OTLP partial success: %s (%d %s rejected)", msg, p.rejected, p.kind)
}

// wireCodec sends a wireRequest as it is and keeps a wireAnswer as it
// came; other messages it encodes and decodes as the proto codec does.
// Named "proto", it is the content type collectors expect.
type wireCodec struct{}

func (wireCodec) Name() string { return "proto" }

func (wireCodec) Marshal(v any) (mem.BufferSlice, error) {
	if r, ok := v.(*wireRequest); ok {
		return mem.BufferSlice{mem.SliceBuffer(*r)}, nil
	}
	return encoding.GetCodecV2("proto").Marshal(v)
}

func (wireCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if a, ok := v.(*wireAnswer); ok {
		*a = data.Materialize()
		return nil
	}
	return encoding.GetCodecV2("proto").Unmarshal(data, v)
}
