package spanmap

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// SpanRecord is a finished span as data: what a process that cannot hold
// a span open (a hook, which lives for one event) hands on, to be made
// into a span by another, with the IDs it names.
type SpanRecord struct {
	TraceID    trace.TraceID
	SpanID     trace.SpanID
	Parent     trace.SpanID // zero for the trace's root
	Name       string
	Kind       trace.SpanKind
	Start, End time.Time
	Attrs      []attribute.KeyValue
	Events     []RecordEvent
	Status     codes.Code
	Message    string
	Links      []RecordLink // spans this one follows from: a turn's root, the turn before
}

// RecordLink is a span link of a record: the span it points to.
type RecordLink struct {
	TraceID trace.TraceID
	SpanID  trace.SpanID
}

// RecordEvent is a span event of a record.
type RecordEvent struct {
	Name  string
	At    time.Time
	Attrs []attribute.KeyValue
}

// Emit makes the span a record describes. The tracer's provider must use
// IDGenerator, as for a Recorder's.
func Emit(ctx context.Context, tracer trace.Tracer, r SpanRecord) {
	if r.Parent.IsValid() {
		// A local parent: its trace is whole only once its root ends
		// (reports and whole-trace export wait for it), as in a process
		// that made every span itself.
		ctx = trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: r.TraceID, SpanID: r.Parent, TraceFlags: trace.FlagsSampled}))
	}
	p := draft{sc: trace.NewSpanContext(trace.SpanContextConfig{TraceID: r.TraceID, SpanID: r.SpanID, TraceFlags: trace.FlagsSampled}),
		name: r.Name, kind: r.Kind, start: r.Start, end: r.End, attrs: r.Attrs, code: r.Status, message: r.Message}
	for _, e := range r.Events {
		p.events = append(p.events, event{name: e.Name, at: e.At, attrs: e.Attrs})
	}
	for _, l := range r.Links {
		p.links = append(p.links, trace.Link{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: l.TraceID, SpanID: l.SpanID, TraceFlags: trace.FlagsSampled, Remote: true})})
	}
	emitSpan(ctx, tracer, true, &p) // the record holds what it should
}

// record is the draft as data, for another process to make (Emit).
func (p *draft) record() SpanRecord {
	r := SpanRecord{TraceID: p.sc.TraceID(), SpanID: p.sc.SpanID(), Name: p.name, Kind: p.kind, Start: p.start, End: p.end,
		Attrs: p.attrs, Status: p.code, Message: p.message}
	if p.parent.IsValid() {
		r.Parent = p.parent.SpanID()
	}
	if p.dropped > 0 {
		r.Attrs = append(r.Attrs, DroppedEvents.Int(p.dropped))
	}
	for _, e := range p.events {
		r.Events = append(r.Events, RecordEvent{Name: e.name, At: e.at, Attrs: e.attrs})
	}
	for _, l := range p.links {
		r.Links = append(r.Links, RecordLink{TraceID: l.SpanContext.TraceID(), SpanID: l.SpanContext.SpanID()})
	}
	return r
}

// The JSON form of a record, for a spool file.
type recordJSON struct {
	TraceID string      `json:"trace_id"`
	SpanID  string      `json:"span_id"`
	Parent  string      `json:"parent,omitempty"`
	Name    string      `json:"name"`
	Kind    int         `json:"kind"`
	Start   time.Time   `json:"start"`
	End     time.Time   `json:"end"`
	Attrs   []attrJSON  `json:"attrs,omitempty"`
	Events  []eventJSON `json:"events,omitempty"`
	Status  int         `json:"status,omitempty"`
	Message string      `json:"message,omitempty"`
	Links   []linkJSON  `json:"links,omitempty"`
}

type linkJSON struct {
	TraceID string `json:"trace_id"`
	SpanID  string `json:"span_id"`
}

type eventJSON struct {
	Name  string     `json:"name"`
	At    time.Time  `json:"at"`
	Attrs []attrJSON `json:"attrs,omitempty"`
}

type attrJSON struct {
	Key   string `json:"k"`
	Type  string `json:"t"`
	Value any    `json:"v"`
}

func (r SpanRecord) MarshalJSON() ([]byte, error) {
	j := recordJSON{TraceID: r.TraceID.String(), SpanID: r.SpanID.String(), Name: r.Name, Kind: int(r.Kind),
		Start: r.Start, End: r.End, Attrs: attrsToJSON(r.Attrs), Status: int(r.Status), Message: r.Message}
	if r.Parent.IsValid() {
		j.Parent = r.Parent.String()
	}
	for _, e := range r.Events {
		j.Events = append(j.Events, eventJSON{Name: e.Name, At: e.At, Attrs: attrsToJSON(e.Attrs)})
	}
	for _, l := range r.Links {
		j.Links = append(j.Links, linkJSON{TraceID: l.TraceID.String(), SpanID: l.SpanID.String()})
	}
	return json.Marshal(j)
}

func (r *SpanRecord) UnmarshalJSON(b []byte) error {
	var j recordJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	var err error
	if r.TraceID, err = trace.TraceIDFromHex(j.TraceID); err != nil {
		return fmt.Errorf("trace id: %w", err)
	}
	if r.SpanID, err = trace.SpanIDFromHex(j.SpanID); err != nil {
		return fmt.Errorf("span id: %w", err)
	}
	if j.Parent != "" {
		if r.Parent, err = trace.SpanIDFromHex(j.Parent); err != nil {
			return fmt.Errorf("parent id: %w", err)
		}
	}
	r.Name, r.Kind, r.Start, r.End = j.Name, trace.SpanKind(j.Kind), j.Start, j.End
	r.Status, r.Message = codes.Code(j.Status), j.Message
	r.Attrs = attrsFromJSON(j.Attrs)
	for _, e := range j.Events {
		r.Events = append(r.Events, RecordEvent{Name: e.Name, At: e.At, Attrs: attrsFromJSON(e.Attrs)})
	}
	for _, l := range j.Links {
		tid, terr := trace.TraceIDFromHex(l.TraceID)
		sid, serr := trace.SpanIDFromHex(l.SpanID)
		if terr == nil && serr == nil { // a damaged link is left out, the span kept
			r.Links = append(r.Links, RecordLink{TraceID: tid, SpanID: sid})
		}
	}
	return nil
}

func attrsToJSON(kvs []attribute.KeyValue) []attrJSON {
	out := make([]attrJSON, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, attrJSON{Key: string(kv.Key), Type: kv.Value.Type().String(), Value: kv.Value.AsInterface()})
	}
	return out
}

func attrsFromJSON(js []attrJSON) []attribute.KeyValue {
	var out []attribute.KeyValue
	for _, j := range js {
		k := attribute.Key(j.Key)
		switch j.Type {
		case "BOOL":
			b, _ := j.Value.(bool)
			out = append(out, k.Bool(b))
		case "INT64":
			f, _ := j.Value.(float64)
			out = append(out, k.Int64(int64(f)))
		case "FLOAT64":
			f, _ := j.Value.(float64)
			out = append(out, k.Float64(f))
		case "STRING":
			s, _ := j.Value.(string)
			out = append(out, k.String(s))
		case "STRINGSLICE":
			items, _ := j.Value.([]any)
			ss := make([]string, 0, len(items))
			for _, it := range items {
				s, _ := it.(string)
				ss = append(ss, s)
			}
			out = append(out, k.StringSlice(ss))
		}
	}
	return out
}
