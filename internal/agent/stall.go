package agent

import (
	"io"
	"time"
)

// LastOutput is when the agent last wrote to its stdout, or to its stderr
// when cursor-otel reads that (not a terminal); its start before it wrote
// anything.
func (p *Process) LastOutput() time.Time {
	return time.Unix(0, p.activity.Load())
}

func (p *Process) wrote(at time.Time) { p.activity.Store(at.UnixNano()) }

// activityReader notes when each read from the agent brought bytes.
type activityReader struct {
	r io.Reader
	p *Process
}

func (a activityReader) Read(b []byte) (int, error) {
	n, err := a.r.Read(b)
	if n > 0 {
		a.p.wrote(time.Now())
	}
	return n, err
}
