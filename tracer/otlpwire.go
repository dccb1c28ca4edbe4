package tracer

import (
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/encoding/protowire"
)

// The OTLP exporter turns each span into a tree of protobuf structs (a
// struct for each attribute and each value), then encodes the tree by
// reflection: in a span-dense replay that was a large share of the CPU
// and of the bytes allocated (docs/performance.md, "measured choices").
// appendRequest writes the same
// message straight from the spans into a reused buffer: the same fields
// as the exporter's transformation (go.opentelemetry.io/otel/exporters/
// otlp/otlptrace/internal/tracetransform) sets, in field order, checked
// against it by TestWireRequestIsTheExporters.

// Field numbers of opentelemetry/proto/{collector/trace,trace,common,resource}/v1.
const (
	fRequestResourceSpans = 1

	fResourceSpansResource   = 1
	fResourceSpansScopeSpans = 2
	fResourceSpansSchemaURL  = 3
	fResourceAttributes      = 1

	fScopeSpansScope     = 1
	fScopeSpansSpans     = 2
	fScopeSpansSchemaURL = 3
	fScopeName           = 1
	fScopeVersion        = 2
	fScopeAttributes     = 3

	fSpanTraceID       = 1
	fSpanSpanID        = 2
	fSpanTraceState    = 3
	fSpanParentSpanID  = 4
	fSpanName          = 5
	fSpanKind          = 6
	fSpanStart         = 7
	fSpanEnd           = 8
	fSpanAttributes    = 9
	fSpanDroppedAttrs  = 10
	fSpanEvents        = 11
	fSpanDroppedEvents = 12
	fSpanLinks         = 13
	fSpanDroppedLinks  = 14
	fSpanStatus        = 15
	fSpanFlags         = 16
	fEventTime         = 1
	fEventName         = 2
	fEventAttributes   = 3
	fEventDroppedAttrs = 4
	fLinkTraceID       = 1
	fLinkSpanID        = 2
	fLinkAttributes    = 4
	fLinkDroppedAttrs  = 5
	fLinkFlags         = 6
	fStatusMessage     = 2
	fStatusCode        = 3
	fKeyValueKey       = 1
	fKeyValueValue     = 2
	fAnyString         = 1
	fAnyBool           = 2
	fAnyInt            = 3
	fAnyDouble         = 4
	fAnyArray          = 5
	fAnyKvlist         = 6
	fAnyBytes          = 7
	fArrayValues       = 1
	fKvlistValues      = 1
	flagHasIsRemote    = 0x100 // SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK
	flagIsRemote       = 0x200 // SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK
	statusCodeOK       = 1
	statusCodeError    = 2
	maxSpanKind        = trace.SpanKindConsumer
	noGroup            = -1
)

// group is the spans of one resource and one scope, in the order they came.
type group struct {
	res   *resource.Resource
	key   attribute.Distinct
	scope instrumentation.Scope
	spans []int
}

// wireEncoder encodes export requests, reusing its memory from one to the
// next (not safe for concurrent use).
type wireEncoder struct {
	buf    []byte
	groups []group
}

// request encodes the ExportTraceServiceRequest the OTLP exporter would
// send for spans. The bytes are valid until the next call.
func (e *wireEncoder) request(spans []sdktrace.ReadOnlySpan) []byte {
	e.group(spans)
	b := e.buf[:0]
	// Resources in the order they were first seen, each with its scopes
	// in that order (the exporter's order of resources is a map's).
	for i := range e.groups {
		g := &e.groups[i]
		if i > 0 && e.groups[i-1].key == g.key {
			continue // written with the resource's first group
		}
		var rs int
		b, rs = beginMessage(b, fRequestResourceSpans)
		if g.res != nil {
			var r int
			b, r = beginMessage(b, fResourceSpansResource)
			for it := g.res.Iter(); it.Next(); {
				b = appendKeyValue(b, fResourceAttributes, it.Attribute())
			}
			b = endMessage(b, r)
		}
		for j := i; j < len(e.groups) && e.groups[j].key == g.key; j++ {
			b = appendScopeSpans(b, &e.groups[j], spans)
		}
		if g.res != nil {
			b = appendString(b, fResourceSpansSchemaURL, g.res.SchemaURL())
		}
		b = endMessage(b, rs)
	}
	e.buf = b
	return b
}

// group sorts spans into groups of one resource and scope, the groups of
// a resource next to each other.
func (e *wireEncoder) group(spans []sdktrace.ReadOnlySpan) {
	e.groups = e.groups[:0]
	last := noGroup
	for i, s := range spans {
		if s == nil {
			continue
		}
		res, scope := s.Resource(), s.InstrumentationScope()
		if last != noGroup && e.groups[last].res == res && e.groups[last].scope == scope {
			e.groups[last].spans = append(e.groups[last].spans, i)
			continue
		}
		key := res.Equivalent()
		last = noGroup
		for j := range e.groups {
			if e.groups[j].key == key && e.groups[j].scope == scope {
				last = j
				break
			}
		}
		if last == noGroup {
			// After the resource's last group, so that a resource's groups
			// stay together.
			at := len(e.groups)
			for j := len(e.groups) - 1; j >= 0; j-- {
				if e.groups[j].key == key {
					at = j + 1
					break
				}
			}
			e.groups = append(e.groups, group{})
			copy(e.groups[at+1:], e.groups[at:])
			e.groups[at] = group{res: res, key: key, scope: scope}
			last = at
		}
		e.groups[last].spans = append(e.groups[last].spans, i)
	}
}

func appendScopeSpans(b []byte, g *group, spans []sdktrace.ReadOnlySpan) []byte {
	b, ss := beginMessage(b, fResourceSpansScopeSpans)
	if g.scope != (instrumentation.Scope{}) {
		b = appendScope(b, fScopeSpansScope, g.scope)
	}
	for _, i := range g.spans {
		b = appendSpan(b, spans[i])
	}
	b = appendString(b, fScopeSpansSchemaURL, g.scope.SchemaURL)
	return endMessage(b, ss)
}

// appendScope appends an InstrumentationScope message as field.
func appendScope(b []byte, field protowire.Number, scope instrumentation.Scope) []byte {
	b, sc := beginMessage(b, field)
	b = appendString(b, fScopeName, scope.Name)
	b = appendString(b, fScopeVersion, scope.Version)
	b = appendAttributes(b, fScopeAttributes, scope.Attributes)
	return endMessage(b, sc)
}

// appendAttributes appends each attribute of set as a KeyValue field.
func appendAttributes(b []byte, field protowire.Number, set attribute.Set) []byte {
	for it := set.Iter(); it.Next(); {
		b = appendKeyValue(b, field, it.Attribute())
	}
	return b
}

func appendSpan(b []byte, s sdktrace.ReadOnlySpan) []byte {
	b, m := beginMessage(b, fScopeSpansSpans)
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b = appendBytes(b, fSpanTraceID, tid[:])
	b = appendBytes(b, fSpanSpanID, sid[:])
	if ts := sc.TraceState(); ts.Len() > 0 {
		b = appendString(b, fSpanTraceState, ts.String())
	}
	parent := s.Parent()
	if psid := parent.SpanID(); psid.IsValid() {
		b = appendBytes(b, fSpanParentSpanID, psid[:])
	}
	b = appendString(b, fSpanName, s.Name())
	if k := s.SpanKind(); k >= trace.SpanKindInternal && k <= maxSpanKind {
		b = appendVarint(b, fSpanKind, uint64(k))
	}
	b = appendFixed64(b, fSpanStart, unixNano(s.StartTime().UnixNano()))
	b = appendFixed64(b, fSpanEnd, unixNano(s.EndTime().UnixNano()))
	for _, kv := range s.Attributes() {
		b = appendKeyValue(b, fSpanAttributes, kv)
	}
	b = appendVarint(b, fSpanDroppedAttrs, clamp32(s.DroppedAttributes()))
	for _, ev := range s.Events() {
		var em int
		b, em = beginMessage(b, fSpanEvents)
		b = appendFixed64(b, fEventTime, unixNano(ev.Time.UnixNano()))
		b = appendString(b, fEventName, ev.Name)
		for _, kv := range ev.Attributes {
			b = appendKeyValue(b, fEventAttributes, kv)
		}
		b = appendVarint(b, fEventDroppedAttrs, clamp32(ev.DroppedAttributeCount))
		b = endMessage(b, em)
	}
	b = appendVarint(b, fSpanDroppedEvents, clamp32(s.DroppedEvents()))
	for _, l := range s.Links() {
		var lm int
		b, lm = beginMessage(b, fSpanLinks)
		ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		b = appendBytes(b, fLinkTraceID, ltid[:])
		b = appendBytes(b, fLinkSpanID, lsid[:])
		for _, kv := range l.Attributes {
			b = appendKeyValue(b, fLinkAttributes, kv)
		}
		b = appendVarint(b, fLinkDroppedAttrs, clamp32(l.DroppedAttributeCount))
		b = appendFixed32(b, fLinkFlags, flags(l.SpanContext.TraceFlags(), l.SpanContext))
		b = endMessage(b, lm)
	}
	b = appendVarint(b, fSpanDroppedLinks, clamp32(s.DroppedLinks()))
	st := s.Status()
	var sm int
	b, sm = beginMessage(b, fSpanStatus) // always there, as the exporter sets it
	b = appendString(b, fStatusMessage, st.Description)
	switch st.Code {
	case codes.Ok:
		b = appendVarint(b, fStatusCode, statusCodeOK)
	case codes.Error:
		b = appendVarint(b, fStatusCode, statusCodeError)
	}
	b = endMessage(b, sm)
	b = appendFixed32(b, fSpanFlags, flags(sc.TraceFlags(), parent))
	return endMessage(b, m)
}

// flags are the W3C trace flags and whether the parent is remote, as the
// exporter sets them.
func flags(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	f := uint32(tf) | flagHasIsRemote
	if parent.IsRemote() {
		f |= flagIsRemote
	}
	return f
}

func appendKeyValue(b []byte, field protowire.Number, kv attribute.KeyValue) []byte {
	b, m := beginMessage(b, field)
	b = appendString(b, fKeyValueKey, string(kv.Key))
	var v int
	b, v = beginMessage(b, fKeyValueValue)
	b = appendValue(b, kv.Value)
	b = endMessage(b, v)
	return endMessage(b, m)
}

// appendValue appends an AnyValue's fields. A oneof's member is written
// even when it holds its zero value.
func appendValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.BOOL:
		b = protowire.AppendTag(b, fAnyBool, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(v.AsBool()))
	case attribute.INT64:
		b = protowire.AppendTag(b, fAnyInt, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		b = protowire.AppendTag(b, fAnyDouble, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(v.AsFloat64()))
	case attribute.STRING:
		b = protowire.AppendTag(b, fAnyString, protowire.BytesType)
		return protowire.AppendString(b, v.AsString())
	case attribute.BYTESLICE:
		b = protowire.AppendTag(b, fAnyBytes, protowire.BytesType)
		return protowire.AppendBytes(b, v.AsByteSlice())
	case attribute.BOOLSLICE:
		return appendArray(b, v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		return appendArray(b, v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		return appendArray(b, v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		return appendArray(b, v.AsStringSlice(), attribute.StringValue)
	case attribute.SLICE:
		return appendArray(b, v.AsSlice(), func(v attribute.Value) attribute.Value { return v })
	case attribute.MAP:
		b, m := beginMessage(b, fAnyKvlist)
		for _, kv := range v.AsMap() {
			b = appendKeyValue(b, fKvlistValues, kv)
		}
		return endMessage(b, m)
	case attribute.EMPTY:
		return b
	}
	b = protowire.AppendTag(b, fAnyString, protowire.BytesType)
	return protowire.AppendString(b, "INVALID")
}

func appendArray[T any](b []byte, items []T, value func(T) attribute.Value) []byte {
	b, a := beginMessage(b, fAnyArray)
	for _, it := range items {
		var m int
		b, m = beginMessage(b, fArrayValues)
		b = appendValue(b, value(it))
		b = endMessage(b, m)
	}
	return endMessage(b, a)
}

// beginMessage appends the tag of a message field and one byte for its
// length, and returns where the message starts; endMessage writes the
// length, moving the message along when it takes more than a byte.
func beginMessage(b []byte, field protowire.Number) ([]byte, int) {
	b = protowire.AppendTag(b, field, protowire.BytesType)
	b = append(b, 0)
	return b, len(b)
}

func endMessage(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 {
		b[start-1] = byte(n)
		return b
	}
	k := protowire.SizeVarint(uint64(n))
	for range k - 1 {
		b = append(b, 0)
	}
	copy(b[start+k-1:], b[start:start+n])
	protowire.AppendVarint(b[:start-1], uint64(n))
	return b
}

// The scalar fields below are left out at their zero value, as proto3 has it.

func appendString(b []byte, field protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, field, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytes(b []byte, field protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = protowire.AppendTag(b, field, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendVarint(b []byte, field protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, field, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendFixed64(b []byte, field protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, field, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, v)
}

func appendFixed32(b []byte, field protowire.Number, v uint32) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, field, protowire.Fixed32Type)
	return protowire.AppendFixed32(b, v)
}

func unixNano(n int64) uint64 { return uint64(max(0, n)) }

func clamp32(n int) uint64 { return uint64(min(max(0, int64(n)), math.MaxUint32)) }
