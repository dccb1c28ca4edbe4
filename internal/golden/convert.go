package golden

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// FromStubs converts spans from the SDK's in-memory exporter.
func FromStubs(stubs tracetest.SpanStubs) []Span {
	spans := make([]Span, 0, len(stubs))
	for _, s := range stubs {
		sp := Span{
			TraceID:       s.SpanContext.TraceID().String(),
			SpanID:        s.SpanContext.SpanID().String(),
			Name:          s.Name,
			Kind:          s.SpanKind.String(),
			Start:         s.StartTime,
			End:           s.EndTime,
			Status:        s.Status.Code.String(),
			StatusMessage: s.Status.Description,
			Attributes:    kvsFromSDK(s.Attributes),
		}
		if s.Parent.IsValid() {
			sp.ParentID = s.Parent.SpanID().String()
		}
		for _, e := range s.Events {
			sp.Events = append(sp.Events, Event{Name: e.Name, Time: e.Time, Attributes: kvsFromSDK(e.Attributes)})
		}
		for _, l := range s.Links {
			sp.Links = append(sp.Links, l.SpanContext.TraceID().String()+"/"+l.SpanContext.SpanID().String())
		}
		spans = append(spans, sp)
	}
	return spans
}

func kvsFromSDK(attrs []attribute.KeyValue) []KV {
	kvs := make([]KV, 0, len(attrs))
	for _, a := range attrs {
		var v string
		switch a.Value.Type() {
		case attribute.STRING:
			v = strconv.Quote(a.Value.AsString())
		default:
			v = a.Value.String()
		}
		kvs = append(kvs, KV{Key: string(a.Key), Value: v})
	}
	return kvs
}

// FromOTLP converts spans as an OTLP receiver got them.
func FromOTLP(resourceSpans []*tracepb.ResourceSpans) []Span {
	var spans []Span
	for _, rs := range resourceSpans {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				sp := Span{
					TraceID:       hex.EncodeToString(s.GetTraceId()),
					SpanID:        hex.EncodeToString(s.GetSpanId()),
					Name:          s.GetName(),
					Kind:          otlpKind(s.GetKind()),
					Start:         time.Unix(0, int64(s.GetStartTimeUnixNano())),
					End:           time.Unix(0, int64(s.GetEndTimeUnixNano())),
					Status:        otlpStatus(s.GetStatus().GetCode()),
					StatusMessage: s.GetStatus().GetMessage(),
					Attributes:    kvsFromOTLP(s.GetAttributes()),
				}
				if len(s.GetParentSpanId()) > 0 {
					sp.ParentID = hex.EncodeToString(s.GetParentSpanId())
				}
				for _, e := range s.GetEvents() {
					sp.Events = append(sp.Events, Event{Name: e.GetName(), Time: time.Unix(0, int64(e.GetTimeUnixNano())), Attributes: kvsFromOTLP(e.GetAttributes())})
				}
				for _, l := range s.GetLinks() {
					sp.Links = append(sp.Links, hex.EncodeToString(l.GetTraceId())+"/"+hex.EncodeToString(l.GetSpanId()))
				}
				spans = append(spans, sp)
			}
		}
	}
	return spans
}

func kvsFromOTLP(attrs []*commonpb.KeyValue) []KV {
	kvs := make([]KV, 0, len(attrs))
	for _, a := range attrs {
		kvs = append(kvs, KV{Key: a.GetKey(), Value: otlpValue(a.GetValue())})
	}
	return kvs
}

// otlpValue renders a value as kvsFromSDK does, so both sides compare.
func otlpValue(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return strconv.Quote(x.StringValue)
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_ArrayValue:
		// As the SDK's Value.String renders a slice: JSON.
		items := make([]any, 0, len(x.ArrayValue.GetValues()))
		for _, v := range x.ArrayValue.GetValues() {
			switch y := v.GetValue().(type) {
			case *commonpb.AnyValue_StringValue:
				items = append(items, y.StringValue)
			case *commonpb.AnyValue_IntValue:
				items = append(items, y.IntValue)
			case *commonpb.AnyValue_BoolValue:
				items = append(items, y.BoolValue)
			case *commonpb.AnyValue_DoubleValue:
				items = append(items, y.DoubleValue)
			}
		}
		b, _ := json.Marshal(items)
		return string(b)
	default:
		return fmt.Sprint(v)
	}
}

// otlpKind and otlpStatus name kinds and codes as the SDK's String methods do.
func otlpKind(k tracepb.Span_SpanKind) string {
	switch k {
	case tracepb.Span_SPAN_KIND_INTERNAL:
		return "internal"
	case tracepb.Span_SPAN_KIND_SERVER:
		return "server"
	case tracepb.Span_SPAN_KIND_CLIENT:
		return "client"
	case tracepb.Span_SPAN_KIND_PRODUCER:
		return "producer"
	case tracepb.Span_SPAN_KIND_CONSUMER:
		return "consumer"
	}
	return "unspecified"
}

func otlpStatus(c tracepb.Status_StatusCode) string {
	switch c {
	case tracepb.Status_STATUS_CODE_OK:
		return "Ok"
	case tracepb.Status_STATUS_CODE_ERROR:
		return "Error"
	}
	return "Unset"
}
