package wrap

import (
	"sync"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

// memTurns is a spanmap.Turns in memory; gate, when set, holds each
// write until it is closed.
type memTurns struct {
	mu    sync.Mutex
	last  map[string]trace.SpanContext
	reads int
	gate  chan struct{}
}

func (m *memTurns) Last(conv string) (trace.SpanContext, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads++
	sc, ok := m.last[conv]
	return sc, ok
}

func (m *memTurns) SetLast(conv string, sc trace.SpanContext) {
	if m.gate != nil {
		<-m.gate
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last[conv] = sc
}

func spanContext(b byte) trace.SpanContext {
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{b}, SpanID: trace.SpanID{b}})
}

func TestEarlyTurnsReadAheadAndWriteInOrder(t *testing.T) {
	m := &memTurns{last: map[string]trace.SpanContext{"c": spanContext(1)}, gate: make(chan struct{})}
	turns := newEarlyTurns(m)
	turns.prefetch("c")
	turns.prefetch("c") // once
	if sc, ok := turns.Last("c"); !ok || !sc.Equal(spanContext(1)) {
		t.Fatalf("Last after prefetch = %v %v, want the turn kept", sc, ok)
	}
	turns.SetLast("c", spanContext(2)) // held at the gate
	// A later session of the same conversation reads after the write,
	// however early it asks.
	turns.prefetch("c")
	read := make(chan trace.SpanContext)
	go func() { sc, _ := turns.Last("c"); read <- sc }()
	close(m.gate)
	if sc := <-read; !sc.Equal(spanContext(2)) {
		t.Errorf("Last after SetLast = %v, want the turn just written", sc)
	}
	turns.SetLast("c", spanContext(3))
	turns.wait()
	if sc, _ := m.Last("c"); !sc.Equal(spanContext(3)) {
		t.Errorf("after wait the turn kept is %v, want the last written", sc)
	}
	if sc, ok := turns.Last("d"); ok {
		t.Errorf("Last of a conversation never kept = %v, want none", sc)
	}
	if m.reads != 4 {
		t.Errorf("%d reads, want 4 (one a prefetch or a Last unprefetched, and the test's own)", m.reads)
	}
}
