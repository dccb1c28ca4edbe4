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
	proc, err := os.StartProcess(s.Path, append([]string{s.Path}, s.Args...), &os.ProcAttr{
		Env:   s.Env,
		Files: files,
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		started <- err
		return
	}
	p.proc = proc
	p.wrote(time.Now())
	p.jobs.begin(proc.Pid)
	// The caller goes on while the watchdog starts (a shell: milliseconds
	// the run would otherwise wait); Wait reads p.guard only after the
	// agent is reaped, below. The caller runs first: woken on this
	// goroutine's processor, it would otherwise wait there while the
	// watchdog's fork holds it, 1.5-2 ms of every start on a 2-core
	// machine.
	started <- nil
	runtime.Gosched()
	if w, err := startWatchdog(proc.Pid); err == nil {
		p.guard = w
	} // else tracing goes on; only the orphan guard is missing

	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(proc.Pid, &ws, syscall.WUNTRACED, nil)
		if err == syscall.EINTR {
			continue
		}
		if err == nil && ws.Stopped() {
			p.jobs.stopped(ws.StopSignal())
			continue
		}
		at := time.Now()
		p.reaped.Store(true)
		signals := p.jobs.end()
		exit := Exit{At: at, Code: ws.ExitStatus(), Signals: signals, Interrupted: len(signals) > 0}
		switch {
		case err != nil:
			exit.Code = 1
		case ws.Signaled():
			exit.Signal, exit.Code = ws.Signal(), 128+int(ws.Signal())
		}
		_ = proc.Release()
		p.exited <- exit
		return
	}
}

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
