//go:build unix

package agent

import (
	"fmt"
	"syscall"
)

// Exec replaces cursor-otel with the agent: for a run that is not traced
// (a subcommand, --help, an interactive session, settings that are wrong),
// so that the agent has the user's terminal, signals, job control and
// exit status as if cursor-otel were not there. It returns only on error.
func Exec(path string, args, env []string) error {
	err := syscall.Exec(path, append([]string{path}, args...), env)
	return fmt.Errorf("exec %s: %w", path, err)
}
