package spanmap

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"
	"sync"

	"go.opentelemetry.io/otel/trace"
)

// A span's IDs are chosen when it opens, and the span is made when it
// ends: its children, made before it, already name it as their parent,
// and by then its start is known (a parent grows to cover its children).
// The TracerProvider gives a span the IDs asked for in the context it is
// started with; it must use IDGenerator.

type idRequestKey struct{}

type idRequest struct {
	trace trace.TraceID // zero: the parent's, or a new one for a root
	span  trace.SpanID
}

// WithIDs returns ctx asking the IDGenerator for these IDs for the span
// started with it. A zero trace ID takes the parent's (or a new one).
func WithIDs(ctx context.Context, traceID trace.TraceID, spanID trace.SpanID) context.Context {
	return context.WithValue(ctx, idRequestKey{}, idRequest{traceID, spanID})
}

// IDGenerator gives a span the IDs its context asks for (WithIDs), and
// random ones otherwise. It is safe for concurrent use.
type IDGenerator struct {
	mu  sync.Mutex
	rng *rand.Rand
}

// NewIDGenerator returns an IDGenerator seeded from the system's random
// source.
func NewIDGenerator() *IDGenerator { return &IDGenerator{rng: newRand()} }

// NewIDs implements sdktrace.IDGenerator.
func (g *IDGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	req, ok := ctx.Value(idRequestKey{}).(idRequest)
	g.mu.Lock()
	defer g.mu.Unlock()
	tid, sid := req.trace, req.span
	if !ok || !tid.IsValid() {
		tid = newTraceID(g.rng)
	}
	if !ok || !sid.IsValid() {
		sid = newSpanID(g.rng)
	}
	return tid, sid
}

// NewSpanID implements sdktrace.IDGenerator.
func (g *IDGenerator) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	if req, ok := ctx.Value(idRequestKey{}).(idRequest); ok && req.span.IsValid() {
		return req.span
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return newSpanID(g.rng)
}

func newRand() *rand.Rand {
	var seed [32]byte
	_, _ = crand.Read(seed[:])
	return rand.New(rand.NewChaCha8(seed))
}

func newSpanID(r *rand.Rand) trace.SpanID {
	var id trace.SpanID
	for !id.IsValid() {
		binary.NativeEndian.PutUint64(id[:], r.Uint64())
	}
	return id
}

func newTraceID(r *rand.Rand) trace.TraceID {
	var id trace.TraceID
	for !id.IsValid() {
		binary.NativeEndian.PutUint64(id[:8], r.Uint64())
		binary.NativeEndian.PutUint64(id[8:], r.Uint64())
	}
	return id
}
