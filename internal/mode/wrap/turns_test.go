package wrap

import (
	"sync"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

// memTurns is a spanmap.Turns in memory; gate, when set, holds each
// write until it is closed.
type memTurns struct {
	mu     sync.Mutex
	last   map[string]trace.SpanContext
	reads  int
	writes int
	gate   chan struct{}
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
	m.writes++
	m.last[conv] = sc
}

func spanContext(b byte) trace.SpanContext {
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{b}, SpanID: trace.SpanID{b}})
}

func TestEarlyTurnsReadAheadAndWriteInOrder(t *testing.T) {
	m := &memTurns{last: map[string]trace.SpanContext{"c": spanContext(1)}, gate: make(chan struct{})}
	turns := newEarlyTurns(m, trace.SpanContext{})
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

// The run's own session is written as the conversation's last turn while
// the agent runs, right after the read of the turn before it: its end
// then writes nothing.
func TestEarlyTurnsWriteTheSessionAhead(t *testing.T) {
	m := &memTurns{last: map[string]trace.SpanContext{"c": spanContext(1)}}
	session := spanContext(2)
	turns := newEarlyTurns(m, session)
	turns.prefetch("c")
	turns.wait()
	if sc, _ := m.Last("c"); !sc.Equal(session) || m.writes != 1 {
		t.Fatalf("while the agent runs the turn kept is %v after %d writes, want the session, written once", sc, m.writes)
	}
	if sc, ok := turns.Last("c"); !ok || !sc.Equal(spanContext(1)) {
		t.Errorf("the session's Last = %v %v, want the turn before it", sc, ok)
	}
	turns.SetLast("c", session)
	turns.wait()
	if m.writes != 1 {
		t.Errorf("%d writes after the session ended, want none more", m.writes-1)
	}
	// Only the first conversation named is the session's; a later session
	// is written at its end.
	turns.prefetch("d")
	turns.wait()
	if _, ok := m.Last("d"); ok {
		t.Errorf("a second conversation was written ahead")
	}
	if sc, _ := turns.Last("c"); !sc.Equal(session) {
		t.Errorf("a later session of the conversation reads %v, want the first session", sc)
	}
	turns.SetLast("c", spanContext(3))
	turns.wait()
	if sc, _ := m.Last("c"); !sc.Equal(spanContext(3)) || m.writes != 2 {
		t.Errorf("after a later session the turn kept is %v after %d writes, want it, written", sc, m.writes)
	}
}
