package spanmap

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// draft is a span not yet sent, whichever source told it: its IDs are
// chosen, and the span is made when it ends (emit), or, a hook turn's,
// once its destination is known (Hooks.Make).
type draft struct {
	sc      trace.SpanContext
	parent  trace.SpanContext // invalid for a session: its parent is the Stream's context
	name    string
	kind    trace.SpanKind
	in      *draft // the invoke_agent span it belongs to; nil for a session
	start   time.Time
	end     time.Time
	attrs   []attribute.KeyValue
	events  []event
	dropped int // events past maxEvents, counted
	code    codes.Code
	message string
	links   []trace.Link
}

type event struct {
	name  string
	at    time.Time
	attrs []attribute.KeyValue
}

// maxEvents bounds the events one span holds; the SDK keeps 128 by
// default (OTEL_SPAN_EVENT_COUNT_LIMIT).
const maxEvents = 256

func (p *draft) addEvent(name string, at time.Time, attrs ...attribute.KeyValue) {
	if len(p.events) >= maxEvents {
		p.dropped++
		return
	}
	p.events = append(p.events, event{name, at, attrs})
}

// grow widens the span to cover [start, end].
func (p *draft) grow(start, end time.Time) {
	if p.start.IsZero() || start.Before(p.start) {
		p.start = start
	}
	if end.After(p.end) {
		p.end = end
	}
}

// set sets each attribute given, replacing the value of a key already
// set where it is (as the SDK's SetAttributes does): a source that learns
// a fact again (ACP's model, mode, a tool's title and status) says it once.
func (p *draft) set(kvs ...attribute.KeyValue) {
	for _, kv := range kvs {
		if i := slices.IndexFunc(p.attrs, func(a attribute.KeyValue) bool { return a.Key == kv.Key }); i >= 0 {
			p.attrs[i] = kv
		} else {
			p.attrs = append(p.attrs, kv)
		}
	}
}

// setStatus sets the span's status as the SDK's SetStatus does: Unset
// never overrides a status, nothing overrides Ok, and only Error keeps
// its message.
func (p *draft) setStatus(code codes.Code, message string) {
	if code == codes.Unset || p.code == codes.Ok {
		return
	}
	p.code, p.message = code, ""
	if code == codes.Error {
		p.message = message
	}
}

// childOf reserves, from rng, the IDs of a span under parent.
func childOf(rng *rand.Rand, parent trace.SpanContext) trace.SpanContext {
	return trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    parent.TraceID(),
		SpanID:     newSpanID(rng),
		TraceFlags: parent.TraceFlags(),
		TraceState: parent.TraceState(),
	})
}

// taken is p as its span is made, a copy: the draft, and the session's
// it names its agent and conversation from (in, left out), may change
// after. Without content capture a tool's span gets its metadata view.
func taken(capture bool, p *draft) draft {
	attrs := p.withIdentity()
	if !capture && Value(attrs, OperationName).AsString() == OpExecuteTool {
		attrs = append(attrs, metadataView(attrs)...)
	}
	s := *p
	s.in, s.attrs = nil, slices.Clip(attrs) // an append after this one copies
	return s
}

// make makes the span through b, under ctx's span when it names no
// parent, and ends it.
func (p *draft) make(ctx context.Context, b *builder) {
	if p.parent.IsValid() {
		ctx = trace.ContextWithSpanContext(ctx, p.parent)
	}
	ctx = WithIDs(ctx, p.sc.TraceID(), p.sc.SpanID())
	end := p.end
	if end.Before(p.start) {
		end = p.start
	}
	span := b.start(ctx, p.name, trace.WithTimestamp(p.start), trace.WithSpanKind(p.kind), trace.WithAttributes(p.attrs...), trace.WithLinks(p.links...))
	if got := span.SpanContext().SpanID(); got != p.sc.SpanID() && span.IsRecording() {
		panic(fmt.Sprintf("spanmap: span %q got ID %s, not the %s reserved: the TracerProvider must use spanmap.IDGenerator", p.name, got, p.sc.SpanID()))
	}
	for _, e := range p.events {
		span.AddEvent(e.name, trace.WithTimestamp(e.at), trace.WithAttributes(e.attrs...))
	}
	if p.dropped > 0 {
		span.SetAttributes(DroppedEvents.Int(p.dropped))
	}
	if p.code != codes.Unset {
		span.SetStatus(p.code, p.message)
	}
	span.End(trace.WithTimestamp(end))
}

// spanMaker makes spans on a goroutine of its own, in the order they
// were emitted (a trace's root after its children, as the SDK's
// processors expect).
type spanMaker struct {
	spans chan draft
	done  chan struct{}
}

func startSpanMaker(ctx context.Context, b *builder, waiting int) *spanMaker {
	m := &spanMaker{spans: make(chan draft, waiting), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		for s := range m.spans {
			s.make(ctx, b)
		}
	}()
	return m
}

// stop makes what is waiting and ends the goroutine.
func (m *spanMaker) stop() {
	close(m.spans)
	<-m.done
}

// withIdentity is the span's attributes with what every span of a
// session says of whom it belongs to, for the backends that group spans
// by conversation and draw each agent's timeline (Langfuse, Phoenix,
// Opik, Honeycomb): the name of the agent whose span it is in (an
// invoke_agent span names its own) and the session's conversation, when
// the stream gave one. Appended in place: a span's attributes are its own.
func (p *draft) withIdentity() []attribute.KeyValue {
	attrs := p.attrs
	if p.in == nil {
		return attrs
	}
	if Value(attrs, AgentName).Type() == attribute.EMPTY {
		attrs = append(attrs, AgentName.String(Value(p.in.attrs, AgentName).AsString()))
	}
	session := p.in
	for session.in != nil {
		session = session.in
	}
	if conv := Value(session.attrs, ConversationID); conv.Type() == attribute.STRING {
		attrs = append(attrs, ConversationID.String(conv.AsString()))
	}
	return attrs
}

// contextOf is ctx holding sc as the current span.
func contextOf(ctx context.Context, sc trace.SpanContext) context.Context {
	return trace.ContextWithSpanContext(ctx, sc)
}
