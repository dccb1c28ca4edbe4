package tracer

import (
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/protobuf/proto"
)

// Warm does now what the first export would do first: the protobuf
// library makes its encoder for a message type when it first meets one,
// so the first export pays for every OTLP type in it, a few milliseconds,
// and a wrapped run's first export is at the agent's exit. Warm encodes a
// request of each kind the provider exports over OTLP, holding every
// message type an export holds, and decodes an answer. A wrapper calls it
// while the agent runs.
func (p *Provider) Warm() {
	if p.guard == nil && p.metricGuard == nil {
		return
	}
	// The wire exporters encode their own requests and read their own
	// answers: only the OTLP exporters' need the library's.
	var traces, metrics bool
	if p.guard != nil {
		_, wire := p.guard.next.(*wireExporter)
		traces = !wire
	}
	if p.metricGuard != nil {
		_, wire := p.metricGuard.Exporter.(*wireMetricExporter)
		metrics = !wire
	}
	warm(traces, metrics)
	// A gRPC answer's headers come Huffman-coded: HPACK builds its
	// decoding tree at the first, which is at the exit unless built here
	// (docs/performance.md, "measured choices").
	_, _ = hpack.HuffmanDecodeToString(hpack.AppendHuffmanString(nil, "grpc-status"))
}

// warm encodes a trace request, if traces, and a metrics request, if
// metrics, holding the message types cursor-otel's exports hold (spans
// with events and a status, attributes of every kind; sums and
// histograms), and decodes their answers. Types no export holds (links,
// gauges, exemplars) are left out: each costs its own set-up.
func warm(traces, metrics bool) {
	s := func(v string) *commonpb.AnyValue {
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}
	}
	attrs := []*commonpb.KeyValue{
		{Key: "s", Value: s("v")},
		{Key: "i", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: 1}}},
		{Key: "d", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: 1}}},
		{Key: "b", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: true}}},
		{Key: "a", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: []*commonpb.AnyValue{s("v")}}}}},
	}
	resource := &resourcepb.Resource{Attributes: attrs}
	scope := &commonpb.InstrumentationScope{Name: "warm", Version: "1"}
	if traces {
		_, _ = proto.Marshal(&coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
			Resource: resource,
			ScopeSpans: []*tracepb.ScopeSpans{{Scope: scope, Spans: []*tracepb.Span{{
				TraceId: make([]byte, 16), SpanId: make([]byte, 8), Name: "warm", Attributes: attrs,
				Events: []*tracepb.Span_Event{{Name: "warm", Attributes: attrs}},
				Status: &tracepb.Status{Message: "warm", Code: tracepb.Status_STATUS_CODE_ERROR},
			}}}},
		}}})
	}
	if traces {
		_ = proto.Unmarshal(nil, &coltracepb.ExportTraceServiceResponse{})
	}
	if metrics {
		sum := 1.0
		_, _ = proto.Marshal(&colmetricpb.ExportMetricsServiceRequest{ResourceMetrics: []*metricpb.ResourceMetrics{{
			Resource: resource,
			ScopeMetrics: []*metricpb.ScopeMetrics{{Scope: scope, Metrics: []*metricpb.Metric{
				{Name: "sum", Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{DataPoints: []*metricpb.NumberDataPoint{
					{Attributes: attrs, Value: &metricpb.NumberDataPoint_AsInt{AsInt: 1}},
					{Attributes: attrs, Value: &metricpb.NumberDataPoint_AsDouble{AsDouble: 1}}}}}},
				{Name: "histogram", Data: &metricpb.Metric_Histogram{Histogram: &metricpb.Histogram{DataPoints: []*metricpb.HistogramDataPoint{{
					Attributes: attrs, Count: 1, Sum: &sum, Min: &sum, Max: &sum, BucketCounts: []uint64{1}, ExplicitBounds: []float64{1},
				}}}}},
			}}},
		}}})
		_ = proto.Unmarshal(nil, &colmetricpb.ExportMetricsServiceResponse{})
	}
}
