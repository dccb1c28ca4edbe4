//go:build unix

package agent

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// run starts the agent and reaps it. It reports its stops (Ctrl-Z, a tty
// read from the background) to job control, which keeps the user's shell
// and terminal as they would be without cursor-otel.
func (p *Process) run(s Spec, files []*os.File, started chan<- error) {
	// The agent's parent-death signal (guardEarly) fires when the thread
	// that forked it ends: this goroutine keeps that thread until the
	// agent is reaped.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pid, err := forkExec(s.Path, append([]string{s.Path}, s.Args...), s.Env, files, guardEarly)
	if err != nil {
		started <- err
		return
	}
	p.pid = pid
	p.wrote(time.Now())
	p.jobs.begin(pid)
	// The caller goes on while the watchdog starts (a shell: milliseconds
	// the run would otherwise wait; on Linux only an agent that outlives
	// watchdogDelay gets one). The caller runs first: woken on this
	// goroutine's processor, it would otherwise wait there while the
	// watchdog's fork holds it, a delay in every start on a 2-core
	// machine (docs/performance.md, "measured choices").
	started <- nil
	runtime.Gosched()
	guard := startGuard(pid, watchdogDelay)

	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, syscall.WUNTRACED, nil)
		if err == syscall.EINTR {
			continue
		}
		if err == nil && ws.Stopped() {
			p.jobs.stopped(ws.StopSignal())
			continue
		}
		at := time.Now()
		p.reaped.Store(true)
		if w := guard.end(); w != nil {
			p.guard = w // Wait reads it after p.exited, and releases it
		}
		signals := p.jobs.end()
		exit := Exit{At: at, Code: ws.ExitStatus(), Signals: signals, Interrupted: len(signals) > 0}
		switch {
		case err != nil:
			exit.Code = 1
		case ws.Signaled():
			exit.Signal, exit.Code = ws.Signal(), 128+int(ws.Signal())
		}
		p.exited <- exit
		return
	}
}

// forkExec starts a program as os.StartProcess does, in a process group
// of its own, but through syscall.ForkExec: a process's first
// os.StartProcess first forks a child of its own to see whether the
// kernel's pidfds work, and neither the agent's start, which its first
// byte waits for, nor the watchdog's need pay for that fork
// (docs/performance.md, "measured choices").
func forkExec(path string, argv, env []string, files []*os.File, attrs ...func(*syscall.SysProcAttr)) (pid int, err error) {
	if env == nil {
		env = os.Environ()
	}
	fds := make([]uintptr, len(files))
	for i, f := range files {
		fds[i] = f.Fd() // as os.StartProcess: the descriptor the child gets
	}
	sys := &syscall.SysProcAttr{Setpgid: true}
	for _, set := range attrs {
		set(sys)
	}
	pid, err = syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: env, Files: fds, Sys: sys})
	runtime.KeepAlive(files)
	if err != nil {
		return 0, &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	return pid, nil // no *os.Process: os.FindProcess makes the same check
}

// Stop ends the agent as --stall-timeout does: TERM to its process group,
// and KILL after grace if it is still there. The agent's exit is then
// reaped as any other.
func (p *Process) Stop(grace time.Duration) {
	pgid := p.pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	time.AfterFunc(grace, func() {
		if !p.reaped.Load() {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	})
}
