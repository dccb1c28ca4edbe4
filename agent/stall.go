package agent

import (
	"io"
	"syscall"
	"time"
)

// LastOutput is when the agent last wrote to its stdout, or to its stderr
// when cursor-otel reads that (not a terminal); its start before it wrote
// anything.
func (p *Process) LastOutput() time.Time {
	return time.Unix(0, p.activity.Load())
}

func (p *Process) wrote(at time.Time) { p.activity.Store(at.UnixNano()) }

// Stop ends the agent as --stall-timeout does: TERM to its process group,
// and KILL after grace if it is still there. The agent's exit is then
// reaped as any other.
func (p *Process) Stop(grace time.Duration) {
	pgid := p.proc.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	time.AfterFunc(grace, func() {
		if !p.reaped.Load() {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	})
}

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
