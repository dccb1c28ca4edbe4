package tracer

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// metricsOfEveryShape are metrics with what the wire encoder writes:
// gauges, sums and histograms of both number kinds, both temporalities,
// zero values, minimums and maximums set and not, empty buckets, every
// kind of attribute, two scopes, a resource with a schema.
func metricsOfEveryShape() *metricdata.ResourceMetrics {
	start, now := time.Unix(1_700_000_000, 123), time.Unix(1_700_000_060, 456)
	set := attribute.NewSet(attribute.String("s", "v"), attribute.Bool("b", true), attribute.Int64("i", -3),
		attribute.Float64("f", 0.5), attribute.StringSlice("ss", []string{"a", ""}), attribute.Int64Slice("is", []int64{1, 0}),
		attribute.Map("m", attribute.String("k", "v")), attribute.String("long", strings.Repeat("x", 300)))
	empty := *attribute.EmptySet()
	sums := []metricdata.Metrics{
		{Name: "sum.int", Description: "an int sum", Unit: "{session}", Data: metricdata.Sum[int64]{
			Temporality: metricdata.CumulativeTemporality, IsMonotonic: true,
			DataPoints: []metricdata.DataPoint[int64]{{Attributes: set, StartTime: start, Time: now, Value: 7}, {Attributes: empty, Time: now, Value: 0}}}},
		{Name: "sum.float", Unit: "USD", Data: metricdata.Sum[float64]{
			Temporality: metricdata.DeltaTemporality,
			DataPoints:  []metricdata.DataPoint[float64]{{Attributes: set, StartTime: start, Time: now, Value: 0.25}, {Time: now, Value: 0}}}},
		{Name: "gauge.int", Data: metricdata.Gauge[int64]{DataPoints: []metricdata.DataPoint[int64]{{Attributes: set, Time: now, Value: -1}}}},
		{Name: "gauge.float", Data: metricdata.Gauge[float64]{DataPoints: []metricdata.DataPoint[float64]{{Time: now, Value: 1.5}}}},
		{Name: "empty.sum", Data: metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality}},
	}
	histograms := []metricdata.Metrics{
		{Name: "histogram.float", Description: "seconds", Unit: "s", Data: metricdata.Histogram[float64]{
			Temporality: metricdata.CumulativeTemporality,
			DataPoints: []metricdata.HistogramDataPoint[float64]{
				{Attributes: set, StartTime: start, Time: now, Count: 3, Sum: 2.5, Bounds: []float64{0.01, 1, 10},
					BucketCounts: []uint64{0, 2, 1, 0}, Min: metricdata.NewExtrema(0.5), Max: metricdata.NewExtrema(1.5)},
				{StartTime: start, Time: now}}}},
		{Name: "histogram.int", Unit: "{token}", Data: metricdata.Histogram[int64]{
			Temporality: metricdata.DeltaTemporality,
			DataPoints: []metricdata.HistogramDataPoint[int64]{
				{Attributes: set, Time: now, Count: 1, Sum: 4096, Bounds: []float64{1, 4096}, BucketCounts: []uint64{0, 1, 0},
					Min: metricdata.NewExtrema[int64](4096), Max: metricdata.NewExtrema[int64](4096)}}}},
	}
	return &metricdata.ResourceMetrics{
		Resource: resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0", attribute.String("service.name", "cursor-agent"), attribute.Int("n", 1)),
		ScopeMetrics: []metricdata.ScopeMetrics{
			{Scope: instrumentation.Scope{Name: "a"}, Metrics: sums},
			{Scope: instrumentation.Scope{Name: "b", Version: "1.2", SchemaURL: "https://example.com/s",
				Attributes: attribute.NewSet(attribute.String("sa", "1"))}, Metrics: histograms},
		},
	}
}

// The wire encoder's request is the one the OTLP/gRPC metric exporter
// sends for the same metrics, field for field; and the wire exporter
// delivers it whole.
func TestWireMetricsRequestIsTheExporters(t *testing.T) {
	ctx := context.Background()
	rm := metricsOfEveryShape()
	want := otlptest.StartGRPC(t)
	std, err := otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithEndpointURL(want.Endpoint))
	if err != nil {
		t.Fatal(err)
	}
	if err := std.Export(ctx, rm); err != nil {
		t.Fatal(err)
	}
	wantReq := &colmetricpb.ExportMetricsServiceRequest{ResourceMetrics: want.Metrics()}
	if len(wantReq.ResourceMetrics) != 1 {
		t.Fatalf("the exporter sent %d resources, want 1", len(wantReq.ResourceMetrics))
	}
	var buf []byte
	for range 2 { // the buffer reused
		b, ok := appendMetricsRequest(buf[:0], rm)
		if !ok {
			t.Fatal("the wire encoder left metrics of its own kinds to the exporter")
		}
		var got colmetricpb.ExportMetricsServiceRequest
		if err := proto.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(&got, wantReq) {
			t.Fatalf("wire request differs from the exporter's:\ngot  %v\nwant %v", &got, wantReq)
		}
		buf = b
	}

	recv := otlptest.StartGRPC(t)
	conn := dialReceiver(t, recv)
	std2, err := otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithGRPCConn(conn))
	if err != nil {
		t.Fatal(err)
	}
	if err := newWireMetricExporter(conn, std2).Export(ctx, rm); err != nil {
		t.Fatal(err)
	}
	if received := (&colmetricpb.ExportMetricsServiceRequest{ResourceMetrics: recv.Metrics()}); !proto.Equal(received, wantReq) {
		t.Fatalf("received:\n%v\nwant %v", received, wantReq)
	}
}

// What the wire encoder does not write (kinds cursor-otel never records,
// exemplars, a temporality the exporter refuses) is the exporter's to
// send, whole.
func TestWireMetricsLeavesOtherKindsToTheExporter(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	for name, data := range map[string]metricdata.Aggregation{
		"exponential histogram": metricdata.ExponentialHistogram[float64]{Temporality: metricdata.CumulativeTemporality,
			DataPoints: []metricdata.ExponentialHistogramDataPoint[float64]{{Time: now, Count: 1}}},
		"summary":                       metricdata.Summary{DataPoints: []metricdata.SummaryDataPoint{{Time: now, Count: 1}}},
		"exemplar":                      metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, DataPoints: []metricdata.DataPoint[int64]{{Time: now, Value: 1, Exemplars: []metricdata.Exemplar[int64]{{Time: now, Value: 1}}}}},
		"gauge exemplar":                metricdata.Gauge[float64]{DataPoints: []metricdata.DataPoint[float64]{{Time: now, Exemplars: []metricdata.Exemplar[float64]{{Time: now}}}}},
		"histogram exemplar":            metricdata.Histogram[float64]{Temporality: metricdata.DeltaTemporality, DataPoints: []metricdata.HistogramDataPoint[float64]{{Time: now, Exemplars: []metricdata.Exemplar[float64]{{Time: now}}}}},
		"no temporality":                metricdata.Sum[float64]{DataPoints: []metricdata.DataPoint[float64]{{Time: now}}},
		"histogram with no temporality": metricdata.Histogram[int64]{},
	} {
		rm := metricsOfEveryShape()
		rm.ScopeMetrics[1].Metrics = append(rm.ScopeMetrics[1].Metrics, metricdata.Metrics{Name: name, Data: data})
		if _, ok := appendMetricsRequest(nil, rm); ok {
			t.Errorf("%s: written by the wire encoder, want it left to the exporter", name)
		}
	}
}

// A failed export is the exporter's to retry and to say; nothing reaches
// a collector that refuses.
func TestWireMetricsFailureIsTheExporters(t *testing.T) {
	ctx := context.Background()
	recv := otlptest.StartGRPC(t)
	recv.Refuse(errRefusedForTest)
	conn := dialReceiver(t, recv)
	std, err := otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithGRPCConn(conn), otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{Enabled: false}))
	if err != nil {
		t.Fatal(err)
	}
	err = newWireMetricExporter(conn, std).Export(ctx, metricsOfEveryShape())
	if err == nil || !strings.HasPrefix(err.Error(), "failed to upload metrics: ") || !strings.Contains(err.Error(), errRefusedForTest.Error()) {
		t.Fatalf("error %v, want the exporter's", err)
	}
	if n := len(recv.Metrics()); n != 0 {
		t.Fatalf("%d resources taken by a refusing collector", n)
	}
}

// An answer is read by hand as the protobuf library reads it: its
// partial success, fields it does not know skipped, and a damaged one
// said to be.
func TestWireAnswerPartialSuccess(t *testing.T) {
	marshal := func(m proto.Message) wireAnswer {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tt := range []struct {
		name     string
		answer   wireAnswer
		rejected int64
		msg      string
		bad      bool
	}{
		{"empty", nil, 0, "", false},
		{"metrics rejected", marshal(&colmetricpb.ExportMetricsServiceResponse{PartialSuccess: &colmetricpb.ExportMetricsPartialSuccess{
			RejectedDataPoints: 3, ErrorMessage: "too old"}}), 3, "too old", false},
		{"spans rejected", marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{
			RejectedSpans: 2}}), 2, "", false},
		{"a warning only", marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{
			ErrorMessage: "slow down"}}), 0, "slow down", false},
		{"fields it does not know", wireAnswer{0x10, 0x05, 0x1a, 0x01, 'x', 0x0a, 0x04, 0x08, 0x01, 0x20, 0x09}, 1, "", false},
		{"cut short", wireAnswer{0x0a, 0x05, 0x08}, 0, "", true},
		{"a bad tag", wireAnswer{0x80}, 0, "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rejected, msg, err := tt.answer.partialSuccess()
			if (err != nil) != tt.bad || rejected != tt.rejected || msg != tt.msg {
				t.Errorf("partialSuccess() = %d, %q, %v; want %d, %q, error %v", rejected, msg, err, tt.rejected, tt.msg, tt.bad)
			}
		})
	}
}

// Over OTLP/gRPC both signals go through the wire exporters, unless a
// variable asks for what only the OTLP exporters do (headers, a timeout);
// over HTTP through the OTLP exporters. The run's spans and metrics
// arrive either way.
func TestWireExportersWhereTheyApply(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name        string
		set         map[string]string // os environment: what the exporters read themselves
		http        bool
		traces, mtr bool // wire exporters expected
	}{
		{"grpc", nil, false, true, true},
		{"metrics headers", map[string]string{"OTEL_EXPORTER_OTLP_METRICS_HEADERS": "k=v"}, false, true, false},
		{"trace timeout", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "5000"}, false, false, true},
		{"headers", map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "k=v"}, false, false, false},
		{"http", nil, true, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.set {
				t.Setenv(k, v)
			}
			recv := otlptest.StartGRPC(t)
			vars := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": recv.Endpoint}
			if tt.http {
				recv = otlptest.StartHTTP(t)
				vars = map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": recv.Endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}
			}
			for k, v := range vars {
				t.Setenv(k, v) // the OTLP exporters read them themselves
			}
			p, err := New(ctx, Config{Getenv: env(vars)})
			if err != nil {
				t.Fatal(err)
			}
			_, traces := p.guard.next.(*wireExporter)
			_, mtr := p.metricGuard.Exporter.(*wireMetricExporter)
			if traces != tt.traces || mtr != tt.mtr {
				t.Errorf("wire exporters: traces %v, metrics %v; want %v, %v", traces, mtr, tt.traces, tt.mtr)
			}
			runs, err := p.Meter().Int64Counter("runs")
			if err != nil {
				t.Fatal(err)
			}
			p.OnTraceEnd(func(Trace) { runs.Add(ctx, 1) })
			p.EndingAt(time.Now())
			_, root := p.Tracer().Start(ctx, "root")
			root.End()
			r := p.Shutdown(ctx)
			if r.Err != nil || r.MetricsErr != nil || recv.SpanCount() != 1 || len(recv.Metrics()) != 1 {
				t.Errorf("exported %d spans (%v), %d metrics exports (%v); want 1 and 1", recv.SpanCount(), r.Err, len(recv.Metrics()), r.MetricsErr)
			}
		})
	}
}
