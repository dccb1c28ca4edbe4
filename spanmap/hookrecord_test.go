package spanmap

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// spanRecord is a span a Build drafted, as the hooks' tests read it.
type spanRecord struct {
	TraceID    trace.TraceID
	SpanID     trace.SpanID
	Parent     trace.SpanID // zero for the trace's root
	Name       string
	Start, End time.Time
	Attrs      []attribute.KeyValue
	Status     codes.Code
	Message    string
	Links      []recordLink
}

// recordLink is a span link of a record: the span it points to.
type recordLink struct {
	TraceID trace.TraceID
	SpanID  trace.SpanID
}

// records are the spans b drafted, in the order they are made.
func (b HookBuilt) records() []spanRecord {
	var out []spanRecord
	for _, p := range b.spans {
		r := spanRecord{TraceID: p.sc.TraceID(), SpanID: p.sc.SpanID(), Parent: p.parent.SpanID(), Name: p.name,
			Start: p.start, End: p.end, Attrs: p.attrs, Status: p.code, Message: p.message}
		for _, l := range p.links {
			r.Links = append(r.Links, recordLink{l.SpanContext.TraceID(), l.SpanContext.SpanID()})
		}
		out = append(out, r)
	}
	return out
}
