// Package detach starts a process that outlives this one: out of its
// session (or console) and process group, so that a terminal closing or a
// Ctrl-C meant for this one does not reach it, with no standard streams
// tied to this one's, and never waited for.
package detach

import (
	"fmt"
	"os/exec"
)

// Start starts path with args (not counting the program name) and env,
// stdin, stdout and stderr on the null device, and lets it go.
func Start(path string, args, env []string) error {
	var err error
	for _, attr := range attempts() {
		cmd := exec.Command(path, args...)
		cmd.Env = env
		cmd.SysProcAttr = attr
		// Nil streams are the null device: nothing waits on a pipe to it.
		cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
		if err = cmd.Start(); err == nil {
			return cmd.Process.Release()
		}
	}
	return fmt.Errorf("detach %s: %w", path, err)
}
