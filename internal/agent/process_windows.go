//go:build windows

package agent

import (
	"os"
	"time"
)

// statusControlC is the status of a console program ended by Ctrl-C
// (STATUS_CONTROL_C_EXIT), for an agent ended by an interrupt that came
// before it started.
const statusControlC = 0xC000013A

// statusStopped is the status of an agent stopped for a stall: 128+15, as
// SIGTERM gives elsewhere, so that a stall reads the same on every
// platform.
const statusStopped = 143

// run starts the agent in a job object (see startInJob) and waits for it.
// The agent shares cursor-otel's console: Ctrl-C and Ctrl-Break reach it
// from the console (see jobControl).
func (p *Process) run(s Spec, files []*os.File, started chan<- error) {
	l, err := windowsLaunch(s.Path, s.Args, os.Getenv)
	if err != nil {
		started <- err
		return
	}
	proc, job, err := startInJob(l, append([]string{s.Path}, s.Args...), s.Env, files)
	if err != nil {
		started <- err
		return
	}
	p.proc, p.pid = proc, proc.Pid
	if job != nil {
		p.guard = job
	}
	p.wrote(time.Now())
	if p.jobs.begin(proc.Pid) {
		p.end(statusControlC)
	}
	started <- nil

	state, err := proc.Wait()
	at := time.Now()
	p.reaped.Store(true)
	signals := p.jobs.end()
	exit := Exit{At: at, Code: 1, Signals: signals, Interrupted: len(signals) > 0}
	if err == nil {
		// Windows' status is 32 bits (0xC000013A for Ctrl-C): passed on
		// whole, as cursor-otel's own.
		exit.Code = int(uint32(state.ExitCode()))
	}
	_ = proc.Release()
	p.exited <- exit
}

// end ends the agent and all it started, with status code.
func (p *Process) end(code uint32) {
	if job, ok := p.guard.(*jobObject); ok && job.terminate(code) == nil {
		return
	}
	_ = p.proc.Kill()
}

// Stop ends the agent as --stall-timeout does. Windows has no gentle
// request to end a console program that reaches the agent alone (a
// Ctrl-Break would reach the whole console), so the agent and all it
// started are ended at once; grace is not waited.
func (p *Process) Stop(time.Duration) {
	if !p.reaped.Load() {
		p.end(statusStopped)
	}
}
