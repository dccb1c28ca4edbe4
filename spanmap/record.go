package spanmap

import (
	"bufio"
	"bytes"
	"encoding/json"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Earlier versions kept a hook turn's finished spans as records, a JSON
// object a line, each naming its IDs: MakeEarlier makes them.

// MakeEarlier makes the spans of an earlier version's record file,
// through h's builder; a damaged line is left out.
func (h *Hooks) MakeEarlier(data []byte) {
	b := h.builder
	b.opts.CaptureContent = true // a record holds what it should
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		var r recordJSON
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		if p, ok := r.draft(); ok {
			b.emit(&p)
		}
	}
}

// recordJSON is a record as its file holds it.
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

// draft is the span r describes; false when it names no valid IDs. Its
// parent is local: its trace is whole only once its root ends (reports
// and whole-trace export wait for it), as in a process that made every
// span itself.
func (r recordJSON) draft() (draft, bool) {
	tid, terr := trace.TraceIDFromHex(r.TraceID)
	sid, serr := trace.SpanIDFromHex(r.SpanID)
	if terr != nil || serr != nil {
		return draft{}, false
	}
	sc := func(t trace.TraceID, s trace.SpanID, remote bool) trace.SpanContext {
		return trace.NewSpanContext(trace.SpanContextConfig{TraceID: t, SpanID: s, TraceFlags: trace.FlagsSampled, Remote: remote})
	}
	p := draft{sc: sc(tid, sid, false), name: r.Name, kind: trace.SpanKind(r.Kind), start: r.Start, end: r.End,
		attrs: attrsFromJSON(r.Attrs), code: codes.Code(r.Status), message: r.Message}
	if r.Parent != "" {
		parent, err := trace.SpanIDFromHex(r.Parent)
		if err != nil {
			return draft{}, false
		}
		p.parent = sc(tid, parent, false)
	}
	for _, e := range r.Events {
		p.events = append(p.events, event{name: e.Name, at: e.At, attrs: attrsFromJSON(e.Attrs)})
	}
	for _, l := range r.Links {
		lt, terr := trace.TraceIDFromHex(l.TraceID)
		ls, serr := trace.SpanIDFromHex(l.SpanID)
		if terr == nil && serr == nil { // a damaged link is left out, the span kept
			p.links = append(p.links, trace.Link{SpanContext: sc(lt, ls, true)})
		}
	}
	return p, true
}

// attrsFromJSON are the attributes as a record file holds them: JSON's
// numbers are float64, an INT64's too.
func attrsFromJSON(js []attrJSON) []attribute.KeyValue {
	var out []attribute.KeyValue
	for _, j := range js {
		k := attribute.Key(j.Key)
		switch v := j.Value.(type) {
		case bool:
			out = append(out, k.Bool(v))
		case string:
			out = append(out, k.String(v))
		case float64:
			if j.Type == "INT64" {
				out = append(out, k.Int64(int64(v)))
			} else {
				out = append(out, k.Float64(v))
			}
		case []any:
			ss := make([]string, 0, len(v))
			for _, it := range v {
				s, _ := it.(string)
				ss = append(ss, s)
			}
			out = append(out, k.StringSlice(ss))
		}
	}
	return out
}
