package agent

import (
	"io"
	"sync"
	"time"
)

// Output is a copy of the agent's stdout for a reader off the hot path.
// The pump that forwards stdout pushes each chunk here and never waits: the
// queue grows instead. Read returns at most one chunk per call, so that
// Arrival names the chunk the reader last read from.
type Output struct {
	mu      sync.Mutex
	ready   *sync.Cond
	chunks  []chunk
	closed  bool
	arrival time.Time // of the chunk Read last returned bytes of
}

type chunk struct {
	data []byte
	at   time.Time
}

func newOutput() *Output {
	o := &Output{}
	o.ready = sync.NewCond(&o.mu)
	return o
}

// push adds a chunk that arrived at at; the caller gives up data.
func (o *Output) push(data []byte, at time.Time) {
	o.mu.Lock()
	o.chunks = append(o.chunks, chunk{data, at})
	o.mu.Unlock()
	o.ready.Signal()
}

// close marks the end of the stream; Read returns io.EOF once drained.
func (o *Output) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	o.ready.Broadcast()
}

// Read copies from the oldest chunk, waiting for one when none is queued.
func (o *Output) Read(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for len(o.chunks) == 0 && !o.closed {
		o.ready.Wait()
	}
	if len(o.chunks) == 0 {
		return 0, io.EOF
	}
	c := &o.chunks[0]
	n := copy(p, c.data)
	o.arrival = c.at
	if c.data = c.data[n:]; len(c.data) == 0 {
		o.chunks[0] = chunk{}
		o.chunks = o.chunks[1:]
	}
	return n, nil
}

// Arrival is when the bytes Read last returned came from the agent.
func (o *Output) Arrival() time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.arrival
}
