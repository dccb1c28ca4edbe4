package tracer

import (
	"context"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// childrenEnded starts a root span and ends n children under it, leaving
// the root open; it returns a func that ends the root.
func childrenEnded(p *Provider, n int) (endRoot func()) {
	ctx, root := p.Tracer().Start(context.Background(), "session")
	for range n {
		_, s := p.Tracer().Start(ctx, "tool")
		s.End()
	}
	return func() { root.End() }
}

// exportsWithin says whether the receiver holds n spans within d (the
// batch processor's timer exports ended spans every second or so here).
func exportsWithin(recv *otlptest.Receiver, n int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if recv.SpanCount() >= n {
			return true
		}
		time.Sleep(20 * time.Millisecond) // polling the receiver with a deadline
	}
	return recv.SpanCount() >= n
}

// By default a session's spans wait for the session: none is exported
// while it runs, all arrive together once it ends, in one export.
func TestSessionExportedWhole(t *testing.T) {
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "100")
	recv := otlptest.StartGRPC(t)
	p := newProvider(t, recv.Endpoint, 3*time.Second)
	endRoot := childrenEnded(p, 20)
	if exportsWithin(recv, 1, 600*time.Millisecond) {
		t.Fatalf("%d spans exported while their session ran", recv.SpanCount())
	}
	endRoot()
	if !exportsWithin(recv, 21, 3*time.Second) {
		t.Fatalf("%d spans exported after the session ended, want 21", recv.SpanCount())
	}
	if r := p.Shutdown(context.Background()); r.Exported != 21 || r.Lost() != 0 {
		t.Errorf("report %+v, want 21 exported", r)
	}
	if n := len(recv.Spans()); n != 1 {
		t.Errorf("the session came in %d exports, want 1", n)
	}
}

// With live spans, each span is exported as it ends.
func TestLiveSpansExportedAsTheyEnd(t *testing.T) {
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "100")
	recv := otlptest.StartGRPC(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.Endpoint)
	p, err := New(context.Background(), Config{FlushTimeout: 3 * time.Second, LiveSpans: true})
	if err != nil {
		t.Fatal(err)
	}
	endRoot := childrenEnded(p, 20)
	if !exportsWithin(recv, 20, 3*time.Second) {
		t.Fatalf("%d spans exported while the session ran, want its 20 children", recv.SpanCount())
	}
	endRoot()
	if r := p.Shutdown(context.Background()); r.Exported != 21 {
		t.Errorf("report %+v, want 21 exported", r)
	}
}

// A trace past the limit is let through as it goes: what is held stays
// bounded, and nothing is lost.
func TestWholeTracesLetsAHugeTraceThrough(t *testing.T) {
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "100")
	recv := otlptest.StartGRPC(t)
	p := newProvider(t, recv.Endpoint, 3*time.Second)
	endRoot := childrenEnded(p, maxWholeSpans+100)
	if !exportsWithin(recv, maxWholeSpans+1, 5*time.Second) {
		t.Fatalf("%d spans exported of a session past the limit, want the first %d", recv.SpanCount(), maxWholeSpans+1)
	}
	endRoot()
	if r := p.Shutdown(context.Background()); r.Exported != maxWholeSpans+101 || recv.SpanCount() != maxWholeSpans+101 {
		t.Errorf("report %+v, receiver %d, want %d exported", r, recv.SpanCount(), maxWholeSpans+101)
	}
}
