//go:build !linux

package flush

import "os"

// ownProgram is what starts this very program again: its path.
func ownProgram() string {
	p, _ := os.Executable()
	return p
}
