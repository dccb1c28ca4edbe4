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

// tapQueue holds what crossed both ways, in the order it crossed: each
// pump pushes before it forwards, so an answer is never queued before the
// request it answers. push never waits.
type tapQueue struct {
	mu       sync.Mutex
	ready    *sync.Cond
	chunks   []tapChunk
	queued   int
	closed   bool
	gap      [2]bool
	cleanCut [2]bool
	untraced int64
	last     atomic.Int64 // when the last chunk crossed, Unix nanoseconds
}

func newTapQueue() *tapQueue {
	q := &tapQueue{}
	q.ready = sync.NewCond(&q.mu)
	return q
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
	c := tapChunk{fromEditor: fromEditor, data: bytes.Clone(data), at: at, gap: q.gap[d], cleanCut: q.cleanCut[d]}
	q.gap[d] = false
	q.chunks = append(q.chunks, c)
	q.queued += len(data)
	q.ready.Signal()
}

// close ends the queue: pop returns what is queued, then false.
func (q *tapQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.ready.Broadcast()
}

// pop waits for the oldest chunk.
func (q *tapQueue) pop() (tapChunk, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.chunks) == 0 && !q.closed {
		q.ready.Wait()
	}
	if len(q.chunks) == 0 {
		return tapChunk{}, false
	}
	c := q.chunks[0]
	q.chunks[0] = tapChunk{}
	q.chunks = q.chunks[1:]
	q.queued -= len(c.data)
	return c, true
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
