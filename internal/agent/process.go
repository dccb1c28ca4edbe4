package agent

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Spec says how to run the agent.
type Spec struct {
	Path string
	Args []string // without the program name
	Env  []string

	// The user's streams. stdin is handed to the agent as it is; stdout
	// and stderr are forwarded (see Start).
	Stdin, Stdout, Stderr *os.File

	// Discard keeps the agent's stdout from the user (the caller prints
	// what the user asked for instead); it is still copied.
	Discard bool

	// CopyStdin forwards the user's stdin to the agent through a pipe,
	// keeping a copy as stdout's is kept (Input), instead of handing it
	// over: an ACP editor's requests are traced too.
	CopyStdin bool

	// Tap, when set, is given each chunk read from the agent's stdout (and,
	// with CopyStdin, from the user's stdin: fromUser) before it is
	// forwarded, instead of queuing it for Output and Input: what crossed
	// both ways, in the order it crossed. It must neither block nor keep
	// data.
	Tap func(fromUser bool, data []byte, at time.Time)
	// Tapped, when set with Tap, is called after each chunk given to Tap
	// was forwarded: where a reader of the copy may be woken, the chunk
	// already on its way.
	Tapped func()
}

// drainGrace is how long stdout and stderr are read after the agent exits:
// a process the agent left behind may hold them open for ever.
const drainGrace = time.Second

// orphanGuard ends the agent when cursor-otel dies before it; release lets
// it go once the agent has ended.
type orphanGuard interface{ release() }

// tailSize is how much of the agent's stderr is kept for the trace.
const tailSize = 4 << 10

// Process is a running agent. On unix it is in a process group of its
// own: a signal meant for cursor-otel's group (a CI runner's kill -TERM
// -PGID, a terminal's Ctrl-C) reaches the agent once, forwarded, never
// twice. On Windows it shares cursor-otel's console, which sends it Ctrl-C
// and Ctrl-Break itself (see jobControl).
type Process struct {
	//lint:ignore U1000 Windows keeps the agent's handle, to kill it; unix signals its pid
	proc     *os.Process
	pid      int
	output   *Output
	tail     *Tail // of stderr; nil when stderr is handed over or merged
	merged   bool
	pipes    []*os.File // read ends, closed after the drain
	pumps    sync.WaitGroup
	guard    orphanGuard // ends the agent if cursor-otel dies; nil when it could not be set up
	jobs     *jobControl
	exited   chan Exit
	input    *Output // the copy of stdin, with CopyStdin
	tap      func(fromUser bool, data []byte, at time.Time)
	tapped   func()
	activity atomic.Int64 // when the agent last wrote, in Unix nanoseconds
	reaped   atomic.Bool  // the agent has exited
}

// Start starts the agent. Its stdout is forwarded to the user's as bytes
// arrive, in one plain copy, before the copy for tracing is queued. Its
// stderr is the user's own when that is a terminal; when stdout and
// stderr are one file or pipe (2>&1) the agent gets one pipe for both, so
// that what it wrote keeps its order; otherwise stderr is forwarded and
// its tail kept for the trace.
//
// If cursor-otel dies without waiting for it (SIGKILL, the OOM killer, a
// task manager), the agent is ended: it does not run on orphaned (a
// watchdog on unix, a job object on Windows).
func Start(s Spec) (*Process, error) {
	p := &Process{exited: make(chan Exit, 1), tap: s.Tap, tapped: s.Tapped}
	var closeAfterStart []*os.File
	fail := func(err error) (*Process, error) {
		for _, f := range append(closeAfterStart, p.pipes...) {
			f.Close()
		}
		return nil, err
	}

	r, stdoutW, err := os.Pipe()
	if err != nil {
		return fail(fmt.Errorf("stdout pipe: %w", err))
	}
	widen(r)
	p.pipes, closeAfterStart = append(p.pipes, r), append(closeAfterStart, stdoutW)
	p.output = newOutput(backlog, s.Discard)
	var dst io.Writer = s.Stdout
	if s.Discard {
		dst = nil
	}

	stderrW := s.Stderr
	switch {
	case IsTerminal(s.Stderr):
		// The agent sees the user's terminal.
	case sameDestination(s.Stdout, s.Stderr):
		p.merged, stderrW = true, stdoutW
	default:
		er, ew, err := os.Pipe()
		if err != nil {
			return fail(fmt.Errorf("stderr pipe: %w", err))
		}
		p.pipes, closeAfterStart = append(p.pipes, er), append(closeAfterStart, ew)
		p.tail, stderrW = NewTail(tailSize), ew
		p.pumps.Add(1)
		go p.pumpStderr(er, s.Stderr)
	}
	p.pumps.Add(1)
	go p.pumpStdout(r, dst)

	// Signals are caught before the agent starts, so that none between
	// its start and the forwarding is lost.
	stdinR := s.Stdin
	if s.CopyStdin {
		ir, iw, err := os.Pipe()
		if err != nil {
			return fail(fmt.Errorf("stdin pipe: %w", err))
		}
		closeAfterStart = append(closeAfterStart, ir)
		stdinR = ir
		p.input = newOutput(backlog, false)
		go p.pumpStdin(s.Stdin, iw)
	}
	p.jobs = newJobControl(s.Stdin, s.Stdout, s.Stderr)
	started := make(chan error, 1)
	go p.run(s, []*os.File{stdinR, stdoutW, stderrW}, started)
	if err := <-started; err != nil {
		p.jobs.stop()
		return fail(err)
	}
	// The agent holds the write ends now; ours would keep the pipes open.
	for _, f := range closeAfterStart {
		f.Close()
	}
	return p, nil
}

// pumpStdout is the hot path: one read, one write, then the copy is queued.
// Nothing here waits for the reader of the copy.
func (p *Process) pumpStdout(r *os.File, dst io.Writer) {
	defer p.pumps.Done()
	defer p.output.close()
	buf := p.output.buffer()
	for {
		n, err := r.Read(buf)
		if n > 0 {
			at := time.Now()
			p.wrote(at)
			if p.tap != nil {
				p.tap(false, buf[:n], at)
			}
			if dst != nil {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					// The user's stdout is gone (a closed pipe): close the
					// agent's too, so it learns as it would without us.
					dst = nil
					r.Close()
				}
			}
			if p.tapped != nil {
				p.tapped()
			}
			if p.tap == nil {
				buf = p.output.pushRead(buf, n, at)
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Process) pumpStderr(r *os.File, dst io.Writer) {
	defer p.pumps.Done()
	_, _ = io.Copy(io.MultiWriter(dst, p.tail), activityReader{r, p})
}

// Output is the copy of the agent's stdout (and, when Merged, stderr).
func (p *Process) Output() *Output { return p.output }

// Exited says the agent has exited (it may still be draining): what was
// to be done while it ran is late.
func (p *Process) Exited() bool { return p.reaped.Load() }

// Merged says the agent's stderr goes into its stdout's pipe: the user
// had them go to one place (2>&1), and the copy holds both, in order.
func (p *Process) Merged() bool { return p.merged }

// Pid is the agent's process id (on unix also its process group's).
func (p *Process) Pid() int { return p.pid }

// Exit is how the agent ended.
type Exit struct {
	Code        int       // the status to exit with: the agent's, or 128+N when signal N killed it
	Signal      os.Signal // the signal that killed the agent, if one did
	Interrupted bool      // a signal was forwarded to the agent
	Signals     []Signal  // the signals forwarded, in order
	StderrTail  string    // the end of its stderr, when it was read
	At          time.Time // when it exited
}

// Signal is a signal forwarded to the agent.
type Signal struct {
	Signal os.Signal
	At     time.Time
}

// Wait waits for the agent to exit and its output to drain.
func (p *Process) Wait() Exit {
	exit := <-p.exited
	if p.guard != nil {
		p.guard.release() // the agent ended; what it left running is its own
	}
	drained := make(chan struct{})
	go func() { p.pumps.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainGrace):
		for _, r := range p.pipes {
			r.Close()
		}
		<-drained
	}
	p.jobs.release()
	if p.tail != nil {
		exit.StderrTail = p.tail.String()
	}
	return exit
}
