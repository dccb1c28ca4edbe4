package spool

import (
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// A kept part is OTLP's own TracesData: the form a collector's file
// exporter writes, readable by any OTLP tool. These convert the SDK's
// spans to it and back, so that the exporter the user configured (its
// endpoint, headers, TLS, compression) sends them later as it would have.

// toOTLP is spans as TracesData, grouped by resource and scope; pb is
// their OTLP form (convert), one for one.
func toOTLP(spans []sdktrace.ReadOnlySpan, pb []*tracepb.Span) *tracepb.TracesData {
	td := &tracepb.TracesData{}
	type key struct {
		res   attribute.Distinct
		scope instrumentation.Scope
	}
	resources := map[attribute.Distinct]*tracepb.ResourceSpans{}
	scopes := map[key]*tracepb.ScopeSpans{}
	for i, s := range spans {
		res := s.Resource()
		if res == nil {
			res = resource.Empty()
		}
		rs := resources[res.Equivalent()]
		if rs == nil {
			rs = &tracepb.ResourceSpans{Resource: &resourcepb.Resource{Attributes: kvsToOTLP(res.Attributes())}, SchemaUrl: res.SchemaURL()}
			resources[res.Equivalent()] = rs
			td.ResourceSpans = append(td.ResourceSpans, rs)
		}
		sc := s.InstrumentationScope()
		k := key{res.Equivalent(), sc}
		ss := scopes[k]
		if ss == nil {
			ss = &tracepb.ScopeSpans{Scope: &commonpb.InstrumentationScope{Name: sc.Name, Version: sc.Version,
				Attributes: kvsToOTLP(sc.Attributes.ToSlice())}, SchemaUrl: sc.SchemaURL}
			scopes[k] = ss
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
		}
		ss.Spans = append(ss.Spans, pb[i])
	}
	return td
}

// convert is spans in their OTLP form, one for one.
func convert(spans []sdktrace.ReadOnlySpan) []*tracepb.Span {
	pb := make([]*tracepb.Span, len(spans))
	for i, s := range spans {
		pb[i] = spanToOTLP(s)
	}
	return pb
}

func spanToOTLP(s sdktrace.ReadOnlySpan) *tracepb.Span {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	p := &tracepb.Span{
		TraceId: tid[:], SpanId: sid[:], TraceState: sc.TraceState().String(), Name: s.Name(),
		Flags:                  uint32(sc.TraceFlags()),
		Kind:                   tracepb.Span_SpanKind(s.SpanKind()),
		StartTimeUnixNano:      unixNano(s.StartTime()),
		EndTimeUnixNano:        unixNano(s.EndTime()),
		Attributes:             kvsToOTLP(s.Attributes()),
		DroppedAttributesCount: uint32(s.DroppedAttributes()),
		DroppedEventsCount:     uint32(s.DroppedEvents()),
		DroppedLinksCount:      uint32(s.DroppedLinks()),
		Status:                 &tracepb.Status{Code: tracepb.Status_StatusCode(s.Status().Code), Message: s.Status().Description},
	}
	if parent := s.Parent(); parent.SpanID().IsValid() {
		pid := parent.SpanID()
		p.ParentSpanId = pid[:]
		if parent.IsRemote() {
			p.Flags |= uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK | tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK)
		}
	}
	for _, e := range s.Events() {
		p.Events = append(p.Events, &tracepb.Span_Event{TimeUnixNano: unixNano(e.Time), Name: e.Name,
			Attributes: kvsToOTLP(e.Attributes), DroppedAttributesCount: uint32(e.DroppedAttributeCount)})
	}
	for _, l := range s.Links() {
		ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		p.Links = append(p.Links, &tracepb.Span_Link{TraceId: ltid[:], SpanId: lsid[:], TraceState: l.SpanContext.TraceState().String(),
			Attributes: kvsToOTLP(l.Attributes), DroppedAttributesCount: uint32(l.DroppedAttributeCount)})
	}
	return p
}

// fromOTLP is TracesData as the SDK's spans, ready for an exporter.
func fromOTLP(td *tracepb.TracesData) ([]sdktrace.ReadOnlySpan, error) {
	var out []sdktrace.ReadOnlySpan
	for _, rs := range td.GetResourceSpans() {
		res := resource.NewWithAttributes(rs.GetSchemaUrl(), kvsFromOTLP(rs.GetResource().GetAttributes())...)
		for _, ss := range rs.GetScopeSpans() {
			scope := instrumentation.Scope{Name: ss.GetScope().GetName(), Version: ss.GetScope().GetVersion(),
				SchemaURL: ss.GetSchemaUrl(), Attributes: attribute.NewSet(kvsFromOTLP(ss.GetScope().GetAttributes())...)}
			for _, p := range ss.GetSpans() {
				stub, err := spanFromOTLP(p)
				if err != nil {
					return nil, err
				}
				stub.Resource, stub.InstrumentationScope = res, scope
				out = append(out, stub.Snapshot())
			}
		}
	}
	return out, nil
}

func spanFromOTLP(p *tracepb.Span) (tracetest.SpanStub, error) {
	var tid trace.TraceID
	var sid trace.SpanID
	if len(p.GetTraceId()) != len(tid) || len(p.GetSpanId()) != len(sid) {
		return tracetest.SpanStub{}, fmt.Errorf("span %q: malformed trace or span id", p.GetName())
	}
	copy(tid[:], p.GetTraceId())
	copy(sid[:], p.GetSpanId())
	ts, _ := trace.ParseTraceState(p.GetTraceState())
	flags := trace.TraceFlags(p.GetFlags() & 0xff)
	stub := tracetest.SpanStub{
		Name:              p.GetName(),
		SpanContext:       trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: flags, TraceState: ts}),
		SpanKind:          trace.SpanKind(p.GetKind()),
		StartTime:         fromUnixNano(p.GetStartTimeUnixNano()),
		EndTime:           fromUnixNano(p.GetEndTimeUnixNano()),
		Attributes:        kvsFromOTLP(p.GetAttributes()),
		Status:            sdktrace.Status{Code: codes.Code(p.GetStatus().GetCode()), Description: p.GetStatus().GetMessage()},
		DroppedAttributes: int(p.GetDroppedAttributesCount()),
		DroppedEvents:     int(p.GetDroppedEventsCount()),
		DroppedLinks:      int(p.GetDroppedLinksCount()),
	}
	if len(p.GetParentSpanId()) == len(sid) {
		var pid trace.SpanID
		copy(pid[:], p.GetParentSpanId())
		remote := p.GetFlags()&uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK) != 0
		stub.Parent = trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: pid, TraceFlags: flags, Remote: remote})
	}
	for _, e := range p.GetEvents() {
		stub.Events = append(stub.Events, sdktrace.Event{Name: e.GetName(), Time: fromUnixNano(e.GetTimeUnixNano()),
			Attributes: kvsFromOTLP(e.GetAttributes()), DroppedAttributeCount: int(e.GetDroppedAttributesCount())})
	}
	for _, l := range p.GetLinks() {
		var ltid trace.TraceID
		var lsid trace.SpanID
		copy(ltid[:], l.GetTraceId())
		copy(lsid[:], l.GetSpanId())
		lts, _ := trace.ParseTraceState(l.GetTraceState())
		stub.Links = append(stub.Links, sdktrace.Link{
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: ltid, SpanID: lsid, TraceState: lts}),
			Attributes:  kvsFromOTLP(l.GetAttributes()), DroppedAttributeCount: int(l.GetDroppedAttributesCount())})
	}
	return stub, nil
}

func unixNano(t time.Time) uint64 {
	if t.IsZero() || t.UnixNano() < 0 {
		return 0
	}
	return uint64(t.UnixNano())
}

func fromUnixNano(n uint64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(n))
}

func kvsToOTLP(kvs []attribute.KeyValue) []*commonpb.KeyValue {
	out := make([]*commonpb.KeyValue, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, &commonpb.KeyValue{Key: string(kv.Key), Value: valueToOTLP(kv.Value)})
	}
	return out
}

func valueToOTLP(v attribute.Value) *commonpb.AnyValue {
	switch v.Type() {
	case attribute.BOOL:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.INT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.FLOAT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	case attribute.STRING:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.AsString()}}
	case attribute.BOOLSLICE:
		return array(v.AsBoolSlice(), func(b bool) attribute.Value { return attribute.BoolValue(b) })
	case attribute.INT64SLICE:
		return array(v.AsInt64Slice(), func(i int64) attribute.Value { return attribute.Int64Value(i) })
	case attribute.FLOAT64SLICE:
		return array(v.AsFloat64Slice(), func(f float64) attribute.Value { return attribute.Float64Value(f) })
	case attribute.STRINGSLICE:
		return array(v.AsStringSlice(), func(s string) attribute.Value { return attribute.StringValue(s) })
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.String()}}
}

func array[T any](items []T, value func(T) attribute.Value) *commonpb.AnyValue {
	arr := &commonpb.ArrayValue{}
	for _, it := range items {
		arr.Values = append(arr.Values, valueToOTLP(value(it)))
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: arr}}
}

func kvsFromOTLP(kvs []*commonpb.KeyValue) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, attribute.KeyValue{Key: attribute.Key(kv.GetKey()), Value: valueFromOTLP(kv.GetValue())})
	}
	return out
}

// valueFromOTLP reads back what valueToOTLP wrote; an array is of its
// first item's type (the SDK's attributes have no mixed arrays).
func valueFromOTLP(v *commonpb.AnyValue) attribute.Value {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_BoolValue:
		return attribute.BoolValue(x.BoolValue)
	case *commonpb.AnyValue_IntValue:
		return attribute.Int64Value(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		return attribute.Float64Value(x.DoubleValue)
	case *commonpb.AnyValue_StringValue:
		return attribute.StringValue(x.StringValue)
	case *commonpb.AnyValue_ArrayValue:
		vals := x.ArrayValue.GetValues()
		if len(vals) == 0 {
			return attribute.StringSliceValue(nil)
		}
		switch vals[0].GetValue().(type) {
		case *commonpb.AnyValue_BoolValue:
			return attribute.BoolSliceValue(mapValues(vals, (*commonpb.AnyValue).GetBoolValue))
		case *commonpb.AnyValue_IntValue:
			return attribute.Int64SliceValue(mapValues(vals, (*commonpb.AnyValue).GetIntValue))
		case *commonpb.AnyValue_DoubleValue:
			return attribute.Float64SliceValue(mapValues(vals, (*commonpb.AnyValue).GetDoubleValue))
		}
		return attribute.StringSliceValue(mapValues(vals, (*commonpb.AnyValue).GetStringValue))
	}
	return attribute.StringValue("")
}

func mapValues[T any](vals []*commonpb.AnyValue, get func(*commonpb.AnyValue) T) []T {
	out := make([]T, len(vals))
	for i, v := range vals {
		out[i] = get(v)
	}
	return out
}
