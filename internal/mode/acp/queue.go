package acp

import (
	"bytes"
	"sync"
	"sync/atomic"
	"time"
)

// queueLimit is the most of the session's traffic queued for the tracer.
// Past it, chunks are dropped (and counted) rather than make either pump
// wait: a 3 MB file answer fits many times over.
const queueLimit = 32 << 20

// maxLine is the longest line the tracer puts together; a longer one is
// passed on (it always is) and not traced.
const maxLine = 64 << 20

// tapChunk is one read of either direction.
type tapChunk struct {
	fromEditor bool
	data       []byte
	at         time.Time
	gap        bool // chunks of this direction were dropped just before
	cleanCut   bool // (a gap) what was dropped ended a line
}

// The tracer reads what crossed in batches, between the session's
// messages rather than beside them: once nothing has crossed for
// readQuiet, or the oldest chunk waited readMost, or wakeBytes are
// queued. Each chunk carries the time it crossed, so the trace's times
// are the same however late it is read; waking the tracer, parsing and
// recording a message at a time cost the cores the messages cross on.
const (
	maxSpare  = 4 << 20  // the most memory kept for push to copy into again
	minSlab   = 64 << 10 // push's first slab
	maxSlab   = 1 << 20  // and the largest it makes, but for one chunk larger
	readQuiet = 2 * time.Millisecond
	readMost  = 100 * time.Millisecond
	wakeBytes = 1 << 20
)

// tapQueue holds what crossed both ways, in the order it crossed: each
// pump pushes before it forwards, so an answer is never queued before the
// request it answers. push never waits, and wakes no one: kick, called
// once the chunk was forwarded, does.
type tapQueue struct {
	mu       sync.Mutex
	chunks   []tapChunk
	queued   int
	closed   bool
	parked   bool // the reader waits for a chunk, with none queued
	gap      [2]bool
	cleanCut [2]bool
	untraced int64
	last     atomic.Int64  // when the last chunk crossed, Unix nanoseconds
	wake     chan struct{} // the reader's

	// What push copies into: the chunks' bytes, one after the other, and
	// the chunks. The reader hands back those of the batch it read
	// (spare) for push to fill again: after the first batches, the copy
	// on the pumps' path allocates nothing (an allocation there may be
	// made to help the garbage collector, the message waiting).
	slab       []byte
	spareSlab  []byte
	spareChunk []tapChunk

	// The reader's own: the batch taken, and how much of it was read.
	takenSlab []byte
	batch     []tapChunk
	taken     []tapChunk
	read      int
}

func newTapQueue() *tapQueue {
	return &tapQueue{wake: make(chan struct{}, 1)}
}

func dir(fromEditor bool) int {
	if fromEditor {
		return 1
	}
	return 0
}

// push copies data into the queue, or drops it when the queue is full.
func (q *tapQueue) push(fromEditor bool, data []byte, at time.Time) {
	q.last.Store(at.UnixNano())
	q.mu.Lock()
	defer q.mu.Unlock()
	d := dir(fromEditor)
	if q.closed {
		return
	}
	if q.queued+len(data) > queueLimit {
		q.gap[d] = true
		q.cleanCut[d] = len(data) > 0 && data[len(data)-1] == '\n'
		q.untraced += int64(len(data))
		return
	}
	if len(q.slab)+len(data) > cap(q.slab) {
		// A new slab, the chunks before keeping theirs: nothing is
		// copied again on the pumps' path.
		q.slab = make([]byte, 0, max(len(data), min(2*cap(q.slab), maxSlab), minSlab))
	}
	start := len(q.slab)
	q.slab = append(q.slab, data...)
	c := tapChunk{fromEditor: fromEditor, data: q.slab[start:len(q.slab):len(q.slab)], at: at, gap: q.gap[d], cleanCut: q.cleanCut[d]}
	q.gap[d] = false
	q.chunks = append(q.chunks, c)
	q.queued += len(data)
}

// kick wakes the reader, after a chunk was pushed and forwarded, when it
// waits for a first chunk or much is queued; otherwise its timer will.
func (q *tapQueue) kick() {
	q.mu.Lock()
	wake := len(q.chunks) > 0 && (q.parked || q.queued >= wakeBytes)
	q.parked = q.parked && !wake
	q.mu.Unlock()
	if wake {
		q.signal()
	}
}

func (q *tapQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default: // a wake is pending
	}
}

// close ends the queue: pop returns what is queued, then false.
func (q *tapQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

// pop returns the oldest chunk, from the batch taken (see take).
func (q *tapQueue) pop() (tapChunk, bool) {
	if len(q.taken) == 0 {
		var ok bool
		if q.taken, ok = q.take(); !ok {
			return tapChunk{}, false
		}
	}
	c := q.taken[0]
	q.taken[0] = tapChunk{}
	q.taken = q.taken[1:]
	q.read += len(c.data)
	return c, true
}

// take waits for chunks, then until it is time to read them (readQuiet,
// readMost, wakeBytes, or the queue's end), and takes them all. What was
// read of the last batch stays counted as queued until then: the bound
// holds the batch being read too.
func (q *tapQueue) take() ([]tapChunk, bool) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		q.mu.Lock()
		q.queued -= q.read
		q.read = 0
		if q.batch != nil { // read: its memory is push's again
			if cap(q.takenSlab) <= maxSpare {
				q.spareSlab = q.takenSlab[:0]
			}
			if cap(q.batch) <= maxSpare/64 {
				clear(q.batch)
				q.spareChunk = q.batch[:0]
			}
			q.takenSlab, q.batch = nil, nil
		}
		now := time.Now()
		if len(q.chunks) == 0 {
			if q.closed {
				q.mu.Unlock()
				return nil, false
			}
			q.parked = true
			q.mu.Unlock()
			<-q.wake
			continue
		}
		wait := min(readQuiet-now.Sub(q.lastPush()), readMost-now.Sub(q.chunks[0].at))
		if q.closed || q.queued >= wakeBytes || wait <= 0 {
			batch := q.chunks
			q.batch, q.takenSlab = batch, q.slab
			q.chunks, q.slab = q.spareChunk, q.spareSlab
			q.spareChunk, q.spareSlab = nil, nil
			q.parked = false
			q.mu.Unlock()
			return batch, true
		}
		q.parked = false
		q.mu.Unlock()
		q.sleep(&timer, wait)
	}
}

// sleep waits d, or for a wake.
func (q *tapQueue) sleep(timer **time.Timer, d time.Duration) {
	if *timer == nil {
		*timer = time.NewTimer(d)
	} else {
		(*timer).Reset(d)
	}
	select {
	case <-q.wake:
	case <-(*timer).C:
	}
}

// Untraced is how many bytes were dropped.
func (q *tapQueue) Untraced() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.untraced
}

// lineSplitter puts one direction's lines back together.
type lineSplitter struct {
	line     []byte
	skipping bool // after a gap: up to the next line end, not traced
	tooLong  bool
}

// feed adds a chunk and calls fn with each whole line it completes.
func (s *lineSplitter) feed(c tapChunk, fn func(line []byte)) {
	if c.gap {
		s.line, s.tooLong = s.line[:0], false
		s.skipping = !c.cleanCut
	}
	data := c.data
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		part := data
		if i >= 0 {
			part = data[:i+1]
		}
		data = data[len(part):]
		if !s.skipping && !s.tooLong {
			if len(s.line)+len(part) > maxLine {
				s.tooLong, s.line = true, s.line[:0]
			} else {
				s.line = append(s.line, part...)
			}
		}
		if i < 0 {
			return
		}
		if !s.skipping && !s.tooLong {
			fn(s.line)
		}
		s.line, s.skipping, s.tooLong = s.line[:0], false, false
	}
}

// lastPush is when the last chunk crossed either way.
func (q *tapQueue) lastPush() time.Time { return time.Unix(0, q.last.Load()) }
