package agent

import (
	"bytes"
	"io"
	"sync"
	"time"
)

// backlog is the most of the agent's output queued for the tracer. An agent
// that writes faster than the tracer reads (a flood of output, a machine
// short of CPU) never waits for it: what would go past this is not traced,
// and counted.
const backlog = 8 << 20

// readSize is the most the pump reads at once.
const readSize = 256 << 10

// maxLine is the longest line the queue keeps whole past its backlog: the
// longest a decoder reads (parse.DefaultMaxLine). A 20 MB tool result
// written in one burst is traced, not cut into a failure.
const maxLine = 64 << 20

// Past the backlog, small whole lines (up to smallLine) are still queued
// within a reserve: a tool's completion or the result that follows a huge
// tool output is traced though the huge line is still being read.
const (
	smallLine = 64 << 10
	reserve   = 1 << 20
)

// Output is a copy of the agent's stdout for a reader off the hot path.
// The pump that forwards stdout pushes each chunk here and does not wait
// for the reader. Read returns at most one chunk per call, so that Arrival names the chunk
// the reader last read from.
//
// When the queue is full, the line under way is still queued to its end
// (up to maxLine), and what follows is dropped, whole lines at a time:
// reading resumes at the first whole line after the drop. Only a line
// longer than maxLine is cut, and then reads as one malformed line. An
// Output made to wait instead (when its reader, not the user, is the
// agent's output's only reader) holds the pump until there is room.
type Output struct {
	mu      sync.Mutex
	ready   *sync.Cond // a chunk was queued, or the stream closed
	room    *sync.Cond // bytes were read
	chunks  []chunk
	queued  int // bytes the chunks hold (see weight)
	limit   int
	wait    bool // hold the pump when full, instead of dropping
	closed  bool
	arrival time.Time // of the chunk Read last returned bytes of

	spare [][]byte // read buffers the reader is done with, for the pump to reuse

	dropping  bool  // chunks are being dropped; a gap goes in before the next one kept
	cleanCut  bool  // the last chunk dropped ended a line
	untraced  int64 // bytes dropped, or skipped to resume at a whole line
	skipping  bool  // the reader is skipping to the end of a line cut by a gap
	lastByte  byte  // the last byte Read returned
	delivered bool  // Read has returned bytes
	lineLen   int   // bytes queued since the last line end: the line under way
	maxLine   int   // the longest line kept whole past the limit
	smallLine int   // the longest chunk of whole lines queued past the limit within the reserve
	reserve   int   // how much of those may be queued past the limit
	extra     int   // how much of the reserve is queued
}

type chunk struct {
	data     []byte // what is left to read of buf
	buf      []byte
	at       time.Time
	gap      bool // output was dropped here
	cleanCut bool // (a gap) what was dropped ended with a whole line
}

func newOutput(limit int, wait bool) *Output {
	o := &Output{limit: limit, wait: wait, maxLine: maxLine, smallLine: smallLine, reserve: reserve}
	o.ready = sync.NewCond(&o.mu)
	o.room = sync.NewCond(&o.mu)
	return o
}

// buffer is a buffer for the pump to read into.
func (o *Output) buffer() []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	if n := len(o.spare); n > 0 {
		buf := o.spare[n-1]
		o.spare = o.spare[:n-1]
		return buf
	}
	return make([]byte, readSize)
}

// pushRead queues what the pump read into buf (one of buffer's) and
// returns the buffer to read into next. A small read is copied, so that
// its buffer is reused at once; a large one is queued as it is, its
// buffer coming back to the pump once read: output crosses without a
// copy and without garbage.
func (o *Output) pushRead(buf []byte, n int, at time.Time) []byte {
	if n < len(buf)/4 {
		o.push(bytes.Clone(buf[:n]), at)
		return buf
	}
	if !o.push(buf[:n], at) {
		return buf // dropped: reuse it
	}
	return o.buffer()
}

// push adds a chunk that arrived at at, and says whether it was queued
// (and the caller gave up data) rather than dropped.
func (o *Output) push(data []byte, at time.Time) bool {
	o.mu.Lock()
	w := weight(data)
	if o.wait {
		for o.queued > 0 && o.queued+w > o.limit {
			o.room.Wait()
		}
	} else if o.queued > 0 && o.queued+w > o.limit {
		// Finish the line under way, if its start was queued, and drop
		// from the next line on, but for small whole lines within the
		// reserve.
		rest := data
		if !o.dropping && o.lineLen > 0 {
			if i := bytes.IndexByte(data, '\n'); i < 0 && o.lineLen+len(data) <= o.maxLine {
				rest = nil
			} else if i >= 0 && o.lineLen+i+1 <= o.maxLine {
				rest = data[i+1:]
			}
		}
		atLineStart := len(rest) < len(data) || !o.dropping && o.lineLen == 0 || o.dropping && o.cleanCut
		if n := len(rest); n > 0 && n <= o.smallLine && rest[n-1] == '\n' && atLineStart && o.extra+n <= o.reserve {
			o.extra += n
			rest = nil
		}
		if len(rest) == len(data) {
			o.drop(data)
			o.mu.Unlock()
			return false
		}
		o.queue(data[:len(data)-len(rest)], at)
		if len(rest) > 0 {
			o.drop(rest)
		}
		o.mu.Unlock()
		o.ready.Signal()
		return true
	}
	o.queue(data, at)
	o.mu.Unlock()
	o.ready.Signal()
	return true
}

// queue adds a chunk, after a gap if output was dropped before it. o.mu
// is held.
func (o *Output) queue(data []byte, at time.Time) {
	if o.dropping {
		o.dropping = false
		o.chunks = append(o.chunks, chunk{at: at, gap: true, cleanCut: o.cleanCut})
		o.lineLen = 1 // the line the gap cut is under way, though its start is lost
	}
	o.chunks = append(o.chunks, chunk{data: data, buf: data, at: at})
	o.queued += weight(data)
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		o.lineLen = len(data) - i - 1
	} else {
		o.lineLen += len(data)
	}
}

// drop counts data as not traced. o.mu is held.
func (o *Output) drop(data []byte) {
	o.dropping = true
	o.cleanCut = len(data) > 0 && data[len(data)-1] == '\n'
	o.untraced += int64(len(data))
}

// close marks the end of the stream; Read returns io.EOF once drained.
func (o *Output) close() {
	o.mu.Lock()
	if o.dropping {
		o.dropping = false
		o.chunks = append(o.chunks, chunk{gap: true, cleanCut: o.cleanCut})
	}
	o.closed = true
	o.mu.Unlock()
	o.ready.Broadcast()
}

// Read copies from the oldest chunk, waiting for one when none is queued.
func (o *Output) Read(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	defer o.room.Signal() // the unlock runs after: the pump wakes to room made
	for {
		for len(o.chunks) == 0 && !o.closed {
			o.ready.Wait()
		}
		if len(o.chunks) == 0 {
			return 0, io.EOF
		}
		c := &o.chunks[0]
		if c.gap {
			gap := *c
			o.pop()
			o.skipping = !gap.cleanCut
			if o.delivered && o.lastByte != '\n' && len(p) > 0 {
				// End the line the gap cut, so that it is not joined to
				// the next whole one.
				p[0], o.lastByte, o.arrival = '\n', '\n', gap.at
				return 1, nil
			}
			continue
		}
		if o.skipping {
			i := bytes.IndexByte(c.data, '\n')
			if i < 0 {
				o.untraced += int64(len(c.data))
				o.pop()
				continue
			}
			o.untraced += int64(i + 1)
			c.data = c.data[i+1:]
			o.skipping = false
			if len(c.data) == 0 {
				o.pop()
				continue
			}
		}
		n := copy(p, c.data)
		o.arrival = c.at
		if n > 0 {
			o.lastByte, o.delivered = c.data[n-1], true
		}
		if c.data = c.data[n:]; len(c.data) == 0 {
			o.pop()
		}
		return n, nil
	}
}

// pop drops the oldest chunk, keeping its buffer for the pump if it is
// one of buffer's. o.mu is held.
func (o *Output) pop() {
	buf := o.chunks[0].buf
	o.queued -= weight(buf)
	if o.queued <= o.limit {
		o.extra = 0 // caught up: the reserve is whole again
	}
	if cap(buf) == readSize && len(o.spare) < 2 {
		o.spare = append(o.spare, buf[:readSize])
	}
	o.chunks[0] = chunk{}
	o.chunks = o.chunks[1:]
}

// weight is the memory a queued chunk holds: a whole read buffer, or the
// copy of a small read.
func weight(data []byte) int {
	if cap(data) == readSize {
		return readSize
	}
	return len(data)
}

// Arrival is when the bytes Read last returned came from the agent.
func (o *Output) Arrival() time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.arrival
}

// Untraced is how many bytes of the agent's output the reader did not get:
// dropped from a full queue, or skipped to resume at a whole line.
func (o *Output) Untraced() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.untraced
}
