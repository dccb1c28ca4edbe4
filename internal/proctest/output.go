package proctest

import (
	"bytes"
	"sync"
)

// Output is a child's output as a test reads it: stdout and stderr may
// both write to it, and the test may read it while the child runs.
type Output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

// Bytes is a copy of what was written so far.
func (o *Output) Bytes() []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	return bytes.Clone(o.buf.Bytes())
}
