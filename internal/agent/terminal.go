package agent

import (
	"os"

	"golang.org/x/term"
)

// IsTerminal says f is a terminal; cursor-agent infers print mode when its
// stdout is not one, or its stdin is not.
func IsTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(int(f.Fd()))
}
