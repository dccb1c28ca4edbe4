//go:build unix

package agent

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// forwarded are the signals cursor-otel passes on to the agent, once each:
// the agent is in a process group of its own, so none reaches it twice.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// jobControl stands in for the agent towards the user's terminal and
// shell. The agent runs in its own process group: whatever cursor-otel's
// group is sent (Ctrl-C at the terminal, a CI runner's kill -TERM -PGID, a
// kill of cursor-otel alone) cursor-otel forwards, exactly once.
//
// The terminal stays with cursor-otel's group until the agent needs it (it
// is stopped for reading from, or setting, the terminal in the
// background): then it is handed to the agent's group, and Ctrl-C reaches
// the agent from the terminal, not through cursor-otel. When the agent
// stops (Ctrl-Z), cursor-otel takes the terminal back and stops too, so
// that the shell sees its job stopped; continued (fg, bg), it continues the
// agent.
type jobControl struct {
	signals chan os.Signal
	quit    chan struct{}
	tty     *os.File // the controlling terminal; nil without one
	self    int      // cursor-otel's process group

	mu            sync.Mutex
	pid           int // the agent, and its process group; 0 until it starts
	deferred      []os.Signal
	done          bool // the agent was reaped: nothing is sent to it any more
	forwarded     []Signal
	wantsTerminal bool // the agent has needed the terminal
}

func newJobControl(std ...*os.File) *jobControl {
	j := &jobControl{signals: make(chan os.Signal, 8), quit: make(chan struct{}), self: syscall.Getpgrp()}
	for _, f := range std {
		if IsTerminal(f) {
			if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
				j.tty = tty
			}
			break
		}
	}
	// SIGPIPE is caught, not ignored: an ignored signal would be ignored by
	// the agent too, and a caught one makes writes to a closed stdout fail
	// with EPIPE instead of killing cursor-otel before it flushes.
	signal.Notify(j.signals, append(forwarded, syscall.SIGPIPE, syscall.SIGTSTP, syscall.SIGCONT)...)
	go j.loop()
	return j
}

// begin says the agent started as pid; signals that came before are
// forwarded now.
func (j *jobControl) begin(pid int) {
	j.mu.Lock()
	j.pid = pid
	early := j.deferred
	j.deferred = nil
	j.mu.Unlock()
	for _, sig := range early {
		j.handle(sig)
	}
}

func (j *jobControl) loop() {
	for {
		select {
		case sig := <-j.signals:
			j.handle(sig)
		case <-j.quit:
			return
		}
	}
}

func (j *jobControl) handle(sig os.Signal) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.pid == 0 {
		j.deferred = append(j.deferred, sig)
		return
	}
	if j.done {
		return
	}
	switch sig {
	case syscall.SIGPIPE:
	case syscall.SIGTSTP:
		// Stop the agent as the terminal would have (its group); its stop
		// then stops cursor-otel (see stopped).
		_ = syscall.Kill(-j.pid, syscall.SIGTSTP)
	case syscall.SIGCONT:
		if j.wantsTerminal && j.foreground() == j.self {
			j.setForeground(j.pid)
		}
		_ = syscall.Kill(-j.pid, syscall.SIGCONT)
	default:
		j.forwarded = append(j.forwarded, Signal{Signal: sig, At: time.Now()})
		_ = syscall.Kill(j.pid, sig.(syscall.Signal))
	}
}

// stopped is told the agent stopped on sig.
func (j *jobControl) stopped(sig syscall.Signal) {
	j.mu.Lock()
	if (sig == syscall.SIGTTIN || sig == syscall.SIGTTOU) && j.tty != nil && j.foreground() == j.self {
		// It needs the terminal, which is cursor-otel's: hand it over.
		j.wantsTerminal = true
		j.setForeground(j.pid)
		_ = syscall.Kill(-j.pid, syscall.SIGCONT)
		j.mu.Unlock()
		return
	}
	if j.tty != nil && j.foreground() == j.pid {
		j.setForeground(j.self)
	}
	j.mu.Unlock()
	// Stop as the agent did, so that the shell sees its job stopped; a
	// SIGCONT (fg, bg) continues cursor-otel, and handle continues the agent.
	_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
}

// end is told the agent was reaped; it takes the terminal back if the
// agent's group had it, and returns the signals forwarded.
func (j *jobControl) end() []Signal {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.done = true
	if j.tty != nil && j.foreground() == j.pid {
		j.setForeground(j.self)
	}
	return j.forwarded
}

// release is told the agent was reaped and its output drained. The
// signals stay caught until cursor-otel exits, each found the agent
// reaped and let be, so that the trace is still flushed (the flush
// timeout bounds it): letting them go would cost the exit path a
// handshake with the runtime's signal thread for each of the seven, 0.1-0.4
// ms, and a second Ctrl-C or SIGTERM would end cursor-otel unflushed.
func (j *jobControl) release() {}

func (j *jobControl) stop() {
	signal.Stop(j.signals)
	close(j.quit)
	if j.tty != nil {
		j.tty.Close()
	}
}

// foreground is the terminal's foreground process group, or -1.
func (j *jobControl) foreground() int {
	if j.tty == nil {
		return -1
	}
	pgrp, err := unix.IoctlGetInt(int(j.tty.Fd()), unix.TIOCGPGRP)
	if err != nil {
		return -1
	}
	return pgrp
}

// setForeground gives the terminal to the process group pgrp. A process
// in the background that does so is sent SIGTTOU, which would stop
// cursor-otel: it is ignored for the call.
func (j *jobControl) setForeground(pgrp int) {
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	_ = unix.IoctlSetPointerInt(int(j.tty.Fd()), unix.TIOCSPGRP, pgrp)
}
