package agent

import (
	"os"
	"time"
)

// pumpStdin is stdin's hot path with CopyStdin: one read, one write to
// the agent, then the copy is queued, never waiting for its reader. The
// user's stdin at its end closes the agent's: the agent sees EOF as it
// would without cursor-otel. An agent that stops reading (it exited)
// leaves the rest of the user's input unread.
func (p *Process) pumpStdin(src *os.File, dst *os.File) {
	defer p.input.close()
	defer dst.Close()
	buf := p.input.buffer()
	for {
		n, err := src.Read(buf)
		if n > 0 {
			at := time.Now()
			if p.tap != nil {
				p.tap(true, buf[:n], at)
			}
			_, werr := dst.Write(buf[:n])
			if p.tapped != nil {
				p.tapped()
			}
			if werr != nil {
				return
			}
			if p.tap == nil {
				buf = p.input.pushRead(buf, n, at)
			}
		}
		if err != nil {
			return
		}
	}
}

// Input is the copy of the user's stdin, with Spec.CopyStdin; nil
// otherwise.
func (p *Process) Input() *Output { return p.input }
