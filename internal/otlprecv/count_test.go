package otlprecv

import (
	"maps"
	"testing"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

func TestCountSpansReadsTheWireFormat(t *testing.T) {
	attr := []*commonpb.KeyValue{{Key: "name", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "not a span"}}}}
	req := &collectorpb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{
		{Resource: &resourcepb.Resource{Attributes: attr}, ScopeSpans: []*tracepb.ScopeSpans{
			{Scope: &commonpb.InstrumentationScope{Name: "scope"}, Spans: []*tracepb.Span{
				{Name: "invoke_agent cursor-agent", Attributes: attr, Events: []*tracepb.Span_Event{{Name: "event"}}},
				{Name: "execute_tool shell", TraceId: make([]byte, 16)},
			}},
			{Spans: []*tracepb.Span{{Name: "execute_tool shell"}}},
		}},
		{ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{{Name: "chat gpt-5"}}}}},
	}}
	b, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	if err := countSpans(b, got); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"invoke_agent cursor-agent": 1, "execute_tool shell": 2, "chat gpt-5": 1}
	if !maps.Equal(got, want) {
		t.Errorf("counted %v, want %v", got, want)
	}
	if err := countSpans(b[:len(b)-3], map[string]int{}); err == nil {
		t.Error("a truncated request was counted without an error")
	}
}
