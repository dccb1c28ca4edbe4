package wrap

import (
	"sync"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/safe"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

// earlyTurns does a resumed conversation's file work while the agent
// runs, off the exit path: the last turn is read as soon as the stream
// names the conversation, and the run's own session, whose span context
// is reserved before the agent starts, is written as the last turn right
// after that read. At the session's end there is then nothing to write: a
// write there (a create and a rename over the old file, which on ext4
// starts the new file's writeback) took CPU from the export beside it on
// a 2-core machine (docs/performance.md, "measured choices").
type earlyTurns struct {
	next  spanmap.Turns
	first trace.SpanContext // the run's first session; invalid: none reserved

	mu    sync.Mutex
	reads map[string]*lastTurn // by conversation: a read under way or done
	// ahead is the turn written ahead of its session's end, in the
	// conversation aheadOf; its SetLast then writes nothing.
	ahead   trace.SpanContext
	aheadOf string
	wrote   chan struct{} // closed when the last write begun so far is done
}

// lastTurn is one read of a conversation's last turn.
type lastTurn struct {
	done chan struct{}
	sc   trace.SpanContext
	ok   bool
}

// newEarlyTurns keeps turns in next; first is the span context reserved
// for the run's first session, written as the last turn of the first
// conversation the stream names.
func newEarlyTurns(next spanmap.Turns, first trace.SpanContext) *earlyTurns {
	wrote := make(chan struct{})
	close(wrote)
	return &earlyTurns{next: next, first: first, reads: map[string]*lastTurn{}, wrote: wrote}
}

// prefetch starts reading the conversation's last turn, after the writes
// already begun (a stream's earlier session of the same conversation).
// The first conversation named is the first session's: once read, the
// session is written as its last turn.
func (t *earlyTurns) prefetch(conversation string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.reads[conversation]; ok {
		return
	}
	r := &lastTurn{done: make(chan struct{})}
	t.reads[conversation] = r
	after := t.wrote
	ahead := t.first
	t.first = trace.SpanContext{} // only the first conversation is the first session's
	if ahead.IsValid() {
		t.ahead, t.aheadOf = ahead, conversation
		done := make(chan struct{})
		t.wrote = done
		go func() {
			defer close(done)
			<-after
			_ = safe.Run(func() { r.sc, r.ok = t.next.Last(conversation) })
			close(r.done)
			_ = safe.Run(func() { t.next.SetLast(conversation, ahead) })
		}()
		return
	}
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

// SetLast writes the turn in the background, after the writes before it,
// unless it was written ahead.
func (t *earlyTurns) SetLast(conversation string, root trace.SpanContext) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if conversation == t.aheadOf && root.Equal(t.ahead) {
		return
	}
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
