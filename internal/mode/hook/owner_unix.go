//go:build unix

package hook

import (
	"os"
	"path/filepath"
	"syscall"
)

// anotherUsers says dir is, or would be made, in a directory another user
// owns: a root run (sudo -E) in the user's home. What such a run wrote
// there (a state, its lock) would shut the user's hooks out of them.
func anotherUsers(dir string) bool {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if info, err := os.Stat(d); err == nil {
			st, ok := info.Sys().(*syscall.Stat_t)
			return ok && int(st.Uid) != os.Geteuid()
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}
