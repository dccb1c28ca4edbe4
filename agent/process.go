package agent

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Spec says how to run the agent.
type Spec struct {
	Path string
	Args []string // without the program name
	Env  []string

	// The user's streams, handed to the agent: stdin always as it is.
	Stdin, Stdout, Stderr *os.File

	// Untouched hands stdout and stderr over as they are too: nothing is
	// copied, nothing traced (interactive runs, subcommands).
	Untouched bool
	// Discard keeps the agent's stdout from the user (the caller prints
	// what the user asked for instead); it is still copied.
	Discard bool
}

// Signals are the signals forwarded to the agent.
var Signals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// drainGrace is how long stdout and stderr are read after the agent exits:
// a process the agent left behind may hold them open for ever.
const drainGrace = time.Second

// tailSize is how much of the agent's stderr is kept for the trace.
const tailSize = 4 << 10

// Process is a running agent.
type Process struct {
	cmd         *exec.Cmd
	output      *Output
	tail        *tail
	pipes       []*os.File // read ends, closed after the drain
	pumps       sync.WaitGroup
	signals     chan os.Signal
	interrupted atomic.Bool
}

// Start starts the agent. Its stdout is forwarded to the user's as bytes
// arrive, in one plain copy, before the copy for tracing is queued.
func Start(s Spec) (*Process, error) {
	p := &Process{cmd: exec.Command(s.Path, s.Args...)}
	p.cmd.Env = s.Env
	p.cmd.Stdin = s.Stdin
	p.cmd.Stdout, p.cmd.Stderr = s.Stdout, s.Stderr

	var stdoutW, stderrW *os.File
	if !s.Untouched {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("stdout pipe: %w", err)
		}
		widen(r)
		p.output, p.cmd.Stdout, stdoutW = newOutput(backlog, s.Discard), w, w
		p.pipes = append(p.pipes, r)
		dst := io.Writer(s.Stdout)
		if s.Discard {
			dst = nil
		}
		p.pumps.Add(1)
		go p.pumpStdout(r, dst)

		// A terminal is handed over as it is: the agent sees the user's
		// terminal. Otherwise stderr is a pipe either way, and this one
		// keeps the tail for the trace.
		if !IsTerminal(s.Stderr) {
			r, w, err := os.Pipe()
			if err != nil {
				return nil, fmt.Errorf("stderr pipe: %w", err)
			}
			p.tail, p.cmd.Stderr, stderrW = newTail(tailSize), w, w
			p.pipes = append(p.pipes, r)
			p.pumps.Add(1)
			go p.pumpStderr(r, s.Stderr)
		}
	}

	// SIGPIPE is caught, not ignored: an ignored signal would be ignored by
	// the agent too, and a caught one makes writes to a closed stdout fail
	// with EPIPE instead of killing cursor-otel before it flushes.
	p.signals = make(chan os.Signal, 4)
	signal.Notify(p.signals, append(Signals, syscall.SIGPIPE)...)
	if err := p.cmd.Start(); err != nil {
		signal.Stop(p.signals)
		for _, f := range append(p.pipes, stdoutW, stderrW) {
			if f != nil {
				f.Close()
			}
		}
		return nil, err
	}
	// The agent holds the write ends now; ours would keep the pipes open.
	for _, w := range []*os.File{stdoutW, stderrW} {
		if w != nil {
			w.Close()
		}
	}
	go p.forwardSignals()
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
			if dst != nil {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					// The user's stdout is gone (a closed pipe): close the
					// agent's too, so it learns as it would without us.
					dst = nil
					r.Close()
				}
			}
			buf = p.output.pushRead(buf, n, at)
		}
		if err != nil {
			return
		}
	}
}

func (p *Process) pumpStderr(r *os.File, dst io.Writer) {
	defer p.pumps.Done()
	_, _ = io.Copy(io.MultiWriter(dst, p.tail), r)
}

func (p *Process) forwardSignals() {
	for sig := range p.signals {
		if sig == syscall.SIGPIPE {
			continue
		}
		p.interrupted.Store(true)
		if terminalSentToGroup(sig) {
			continue // the agent, in our process group, got it from the terminal too
		}
		_ = p.cmd.Process.Signal(sig)
	}
}

// Output is the copy of the agent's stdout; nil for an untouched run.
func (p *Process) Output() *Output { return p.output }

// Exit is how the agent ended.
type Exit struct {
	Code        int       // the status to exit with: the agent's, or 128+N when signal N killed it
	Signal      os.Signal // the signal that killed the agent, if one did
	Interrupted bool      // a signal was forwarded to the agent
	StderrTail  string    // the end of its stderr, when it was read
	At          time.Time // when it exited
}

// Wait waits for the agent to exit and its output to drain.
func (p *Process) Wait() Exit {
	err := p.cmd.Wait()
	exit := Exit{At: time.Now(), Code: p.cmd.ProcessState.ExitCode()}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		exit.Signal, exit.Code = ws.Signal(), 128+int(ws.Signal())
	} else if err != nil && !errors.As(err, new(*exec.ExitError)) {
		exit.Code = 1
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
	signal.Stop(p.signals)
	close(p.signals)
	exit.Interrupted = p.interrupted.Load()
	if p.tail != nil {
		exit.StderrTail = p.tail.String()
	}
	return exit
}
