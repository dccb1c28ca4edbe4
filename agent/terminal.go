package agent

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// IsTerminal says f is a terminal; cursor-agent infers print mode when its
// stdout is not one, or its stdin is not.
func IsTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(int(f.Fd()))
}

// terminalSentToGroup says sig most likely came from a terminal key (Ctrl-C,
// Ctrl-\) to the whole foreground process group, which holds the agent
// too: forwarding it would deliver it twice. A signal sent to cursor-otel
// alone (kill, a CI runner) is forwarded.
func terminalSentToGroup(sig os.Signal) bool {
	if sig != syscall.SIGINT && sig != syscall.SIGQUIT {
		return false
	}
	for _, f := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
		if pgrp, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP); err == nil {
			return pgrp == unix.Getpgrp()
		}
	}
	return false
}
