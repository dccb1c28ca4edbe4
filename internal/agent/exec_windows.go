//go:build windows

package agent

import (
	"fmt"
	"os"
)

// Exec runs the agent for a run that is not traced (a subcommand, --help,
// an interactive session, settings that are wrong) as if cursor-otel were
// not there: the user's console, streams and environment, and its exit
// status as cursor-otel's. Windows cannot replace a process's program, so
// cursor-otel waits for the agent, in a job object (it does not outlive
// cursor-otel), leaving the console's Ctrl-C and Ctrl-Break to it, and
// exits with its status. It returns only on error.
func Exec(path string, args, env []string) error {
	jobs := newJobControl()
	l, err := windowsLaunch(path, args, os.Getenv)
	if err != nil {
		jobs.stop()
		return fmt.Errorf("exec %s: %w", path, err)
	}
	proc, job, err := startInJob(l, append([]string{path}, args...), env, []*os.File{os.Stdin, os.Stdout, os.Stderr})
	if err != nil {
		jobs.stop()
		return fmt.Errorf("exec %s: %w", path, err)
	}
	if jobs.begin(proc.Pid) {
		if job == nil || job.terminate(statusControlC) != nil {
			_ = proc.Kill()
		}
	}
	code := 1
	if state, err := proc.Wait(); err == nil {
		code = int(uint32(state.ExitCode()))
	}
	if job != nil {
		job.release()
	}
	os.Exit(code)
	return nil
}
