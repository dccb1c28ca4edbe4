package wrap

import (
	"sync"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/safe"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

// earlyTurns does a resumed conversation's file work off the exit path:
// the last turn is read while the agent runs, as soon as the stream names
// the conversation, and this run's turn is written beside the export.
// Done when the session ended, they took about 1 ms (a read, a lock, a
// write and a rename) between the agent's exit and the export.
type earlyTurns struct {
	next spanmap.Turns

	mu    sync.Mutex
	reads map[string]*lastTurn // by conversation: a read under way or done
	wrote chan struct{}        // closed when the last write began so far is done
}

// lastTurn is one read of a conversation's last turn.
type lastTurn struct {
	done chan struct{}
	sc   trace.SpanContext
	ok   bool
}

func newEarlyTurns(next spanmap.Turns) *earlyTurns {
	wrote := make(chan struct{})
	close(wrote)
	return &earlyTurns{next: next, reads: map[string]*lastTurn{}, wrote: wrote}
}

// prefetch starts reading the conversation's last turn, after the writes
// already begun (a stream's earlier session of the same conversation).
func (t *earlyTurns) prefetch(conversation string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.reads[conversation]; ok {
		return
	}
	r := &lastTurn{done: make(chan struct{})}
	t.reads[conversation] = r
	after := t.wrote
	go func() {
		defer close(r.done)
		<-after
		_ = safe.Run(func() { r.sc, r.ok = t.next.Last(conversation) })
	}()
}

// Last is the turn prefetch read, or, for a conversation it did not, one
// read now.
func (t *earlyTurns) Last(conversation string) (trace.SpanContext, bool) {
	t.mu.Lock()
	r, ok := t.reads[conversation]
	delete(t.reads, conversation) // a later session of it reads again
	after := t.wrote
	t.mu.Unlock()
	if !ok {
		<-after
		return t.next.Last(conversation)
	}
	<-r.done
	return r.sc, r.ok
}

// SetLast writes the turn in the background, after the writes before it.
func (t *earlyTurns) SetLast(conversation string, root trace.SpanContext) {
	t.mu.Lock()
	defer t.mu.Unlock()
	before, done := t.wrote, make(chan struct{})
	t.wrote = done
	go func() {
		defer close(done)
		<-before
		_ = safe.Run(func() { t.next.SetLast(conversation, root) })
	}()
}

// wait waits for the writes begun.
func (t *earlyTurns) wait() {
	t.mu.Lock()
	wrote := t.wrote
	t.mu.Unlock()
	<-wrote
}
