package tracer

import (
	"context"
	"errors"
	"sync"
	"time"
)

// flushDeadline is when the flush gives up: the flush timeout (less what
// exit takes) after the run's end. A run no one waits on to exit for
// anything but the export (replay) moves it with each answer from the
// collector: the flush timeout then counts from the last answer, so that a
// collector that is busy but answering is waited for, and one that stops
// answering is given up on as before.
type flushDeadline struct {
	timeout time.Duration // the flush timeout, less what exit takes: exit comes after the flush
	moves   bool          // each answer moves it

	mu     sync.Mutex
	end    time.Time // the run's end
	last   time.Time // the collector's last answer
	timer  *time.Timer
	ctx    context.Context // done when the deadline passes
	cancel context.CancelCauseFunc
}

func newFlushDeadline(flushTimeout time.Duration, moves bool) *flushDeadline {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &flushDeadline{timeout: flushTimeout - min(exitAllowance, flushTimeout/10), moves: moves, ctx: ctx, cancel: cancel}
}

// start counts the deadline from the run's end, t.
func (d *flushDeadline) start(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.end = t
	d.timer = time.AfterFunc(time.Until(d.atLocked()), d.check)
}

// started says start was called.
func (d *flushDeadline) started() bool { return !d.ended().IsZero() }

// ended is the run's end, as start was told it.
func (d *flushDeadline) ended() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.end
}

// answered notes an answer from the collector at t.
func (d *flushDeadline) answered(t time.Time) {
	d.mu.Lock()
	if t.After(d.last) {
		d.last = t
	}
	d.mu.Unlock()
}

// lastAnswer is when the collector last answered; zero when it never did.
func (d *flushDeadline) lastAnswer() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.last
}

// at is the deadline as it stands now.
func (d *flushDeadline) at() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.atLocked()
}

func (d *flushDeadline) atLocked() time.Time {
	from := d.end
	if d.moves && d.last.After(from) {
		from = d.last
	}
	return from.Add(d.timeout)
}

// check ends the flush's context if the deadline passed, or looks again
// when it will, now that an answer moved it.
func (d *flushDeadline) check() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if left := time.Until(d.atLocked()); left > 0 {
		d.timer.Reset(left)
		return
	}
	d.cancel(context.DeadlineExceeded)
}

// context is parent, ended when the deadline passes as a deadline ends a
// context (its Err is context.DeadlineExceeded).
func (d *flushDeadline) context(parent context.Context) (context.Context, context.CancelFunc) {
	if !d.moves {
		return context.WithDeadline(parent, d.at())
	}
	ctx, cancel := context.WithCancelCause(parent)
	stop := context.AfterFunc(d.ctx, func() { cancel(context.DeadlineExceeded) })
	return pastDeadline{ctx}, func() { stop(); cancel(context.Canceled) }
}

// pastDeadline is a context cancelled with context.DeadlineExceeded as its
// cause that says so as its error too: for those who tell a deadline
// from a cancellation (the SDK, gRPC, Shutdown's report), it is one.
type pastDeadline struct{ context.Context }

func (c pastDeadline) Err() error {
	err := c.Context.Err()
	if err != nil && errors.Is(context.Cause(c.Context), context.DeadlineExceeded) {
		return context.DeadlineExceeded
	}
	return err
}
