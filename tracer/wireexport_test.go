package tracer

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	grpccodes "google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// spansOfEveryShape are spans with what a span can hold: every kind of
// attribute value, events, links, statuses, a trace state, a remote
// parent, dropped attributes, two scopes and two resources.
func spansOfEveryShape(t *testing.T) []sdktrace.ReadOnlySpan {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	ctx := context.Background()
	start := time.Unix(1_700_000_000, 123)
	for i, res := range []*resource.Resource{
		resource.NewSchemaless(attribute.String("service.name", "a"), attribute.Int("n", 1)),
		resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0", attribute.String("service.name", "b")),
	} {
		limits := sdktrace.NewSpanLimits()
		if i == 1 {
			limits.AttributeCountLimit, limits.AttributePerEventCountLimit = 3, 1
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithSpanProcessor(rec), sdktrace.WithRawSpanLimits(limits))
		long := strings.Repeat("x", 300) // a length of two bytes
		attrs := []attribute.KeyValue{
			attribute.String("s", "v"), attribute.String("empty", ""), attribute.String("long", long),
			attribute.Bool("t", true), attribute.Bool("f", false), attribute.Int64("i", -7), attribute.Int("zero", 0),
			attribute.Float64("x", 1.5), attribute.Float64("fzero", 0),
			attribute.StringSlice("ss", []string{"a", "", long}), attribute.BoolSlice("bs", []bool{true, false}),
			attribute.Int64Slice("is", []int64{1, -2, 0}), attribute.Float64Slice("fs", []float64{0.25, 0}),
			attribute.StringSlice("none", nil), attribute.ByteSlice("bytes", []byte{0, 1, 2}),
			attribute.Slice("mixed", attribute.StringValue("a"), attribute.IntValue(2)),
			attribute.Map("map", attribute.String("k", "v"), attribute.Bool("b", false)),
			{Key: "invalid"}, {Key: "", Value: attribute.StringValue("no key")},
		}
		for _, scope := range []trace.Tracer{tp.Tracer("scope-a"), tp.Tracer("scope-b", trace.WithInstrumentationVersion("1.2"),
			trace.WithInstrumentationAttributes(attribute.String("sa", "1")), trace.WithSchemaURL("https://example.com/s"))} {
			ts, _ := trace.ParseTraceState("k=v")
			remote := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2},
				TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: true})
			rctx, root := scope.Start(trace.ContextWithRemoteSpanContext(ctx, remote), "root", trace.WithTimestamp(start),
				trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...),
				trace.WithLinks(trace.Link{SpanContext: remote, Attributes: []attribute.KeyValue{attribute.String("l", "1")}},
					trace.Link{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{3}, SpanID: trace.SpanID{4}})}))
			root.AddEvent("e", trace.WithTimestamp(start.Add(time.Millisecond)), trace.WithAttributes(attribute.Int("a", 1), attribute.Int("b", 2)))
			root.AddEvent("", trace.WithTimestamp(time.Unix(0, 0)))
			root.SetStatus(codes.Error, "it failed")
			for k, kind := range []trace.SpanKind{trace.SpanKindInternal, trace.SpanKindServer, trace.SpanKindProducer, trace.SpanKindConsumer} {
				_, child := scope.Start(rctx, "child", trace.WithSpanKind(kind), trace.WithTimestamp(start))
				if k == 0 {
					child.SetStatus(codes.Ok, "")
				}
				child.End(trace.WithTimestamp(start.Add(time.Duration(k) * time.Second)))
			}
			_, bare := scope.Start(ctx, "", trace.WithTimestamp(time.Unix(0, 0)))
			bare.End(trace.WithTimestamp(time.Unix(0, 0)))
			root.End(trace.WithTimestamp(start.Add(time.Hour)))
		}
	}
	return rec.Ended()
}

// sorted orders what a receiver got by resource, as the exporter's order
// of resources is a map's.
func sorted(rs []*tracepb.ResourceSpans) []*tracepb.ResourceSpans {
	return slices.SortedFunc(slices.Values(rs), func(a, b *tracepb.ResourceSpans) int {
		return cmp.Compare(a.GetResource().String(), b.GetResource().String())
	})
}

// The wire encoder's request is the one the OTLP exporter sends, field for
// field, and a collector receives it so.
func TestWireRequestIsTheExporters(t *testing.T) {
	spans := spansOfEveryShape(t)
	ctx := context.Background()

	want := otlptest.StartGRPC(t)
	std, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(want.Endpoint))
	if err != nil {
		t.Fatal(err)
	}
	if err := std.ExportSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}

	var enc wireEncoder
	var got coltracepb.ExportTraceServiceRequest
	for range 2 { // the encoder's memory reused
		if err := proto.Unmarshal(enc.request(spans), &got); err != nil {
			t.Fatal(err)
		}
	}
	wantReq := &coltracepb.ExportTraceServiceRequest{ResourceSpans: sorted(want.Spans())}
	if n := want.SpanCount(); n != len(spans) || len(wantReq.ResourceSpans) != 2 {
		t.Fatalf("the exporter sent %d spans of %d, %d resources", n, len(spans), len(wantReq.ResourceSpans))
	}
	if gotReq := (&coltracepb.ExportTraceServiceRequest{ResourceSpans: sorted(got.ResourceSpans)}); !proto.Equal(gotReq, wantReq) {
		t.Fatalf("wire request differs from the exporter's:\ngot  %v\nwant %v", gotReq, wantReq)
	}

	recv := otlptest.StartGRPC(t)
	conn := dialReceiver(t, recv)
	std2, err := otlptracegrpc.New(ctx, otlptracegrpc.WithGRPCConn(conn))
	if err != nil {
		t.Fatal(err)
	}
	wire := newWireExporter(conn, std2)
	if err := wire.ExportSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	if received := (&coltracepb.ExportTraceServiceRequest{ResourceSpans: sorted(recv.Spans())}); !proto.Equal(received, wantReq) {
		t.Fatalf("received:\n%v\nwant %v", received, wantReq)
	}
}

var errRefusedForTest = status.Error(grpccodes.PermissionDenied, "not for you")

// A collector that refuses an export hears of it again through the OTLP
// exporter, whose error the caller gets.
func TestWireExporterFailureIsTheExporters(t *testing.T) {
	spans := spansOfEveryShape(t)
	ctx := context.Background()
	recv := otlptest.StartGRPC(t)
	recv.Refuse(errRefusedForTest)
	conn := dialReceiver(t, recv)
	std, err := otlptracegrpc.New(ctx, otlptracegrpc.WithGRPCConn(conn), otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}))
	if err != nil {
		t.Fatal(err)
	}
	err = newWireExporter(conn, std).ExportSpans(ctx, spans)
	if err == nil || !strings.HasPrefix(err.Error(), "traces export: ") || !strings.Contains(err.Error(), errRefusedForTest.Error()) {
		t.Fatalf("error %v, want the exporter's", err)
	}
	if n := recv.SpanCount(); n != 0 {
		t.Fatalf("%d spans taken by a refusing collector", n)
	}
}

// dialReceiver is a connection to recv, as cursor-otel dials one for the
// wire exporters, closed when the test ends.
func dialReceiver(t *testing.T, recv *otlptest.Receiver) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(strings.TrimPrefix(recv.Endpoint, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}
