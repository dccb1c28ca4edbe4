package agent

import "os"

// sameDestination says a and b are one file or pipe (2>&1), so that what
// the agent writes to either must reach it in the order written. Two
// terminals are left alone: the agent sees its terminal either way.
func sameDestination(a, b *os.File) bool {
	if a == nil || b == nil || IsTerminal(a) || IsTerminal(b) {
		return false
	}
	return sameFile(a, b)
}
