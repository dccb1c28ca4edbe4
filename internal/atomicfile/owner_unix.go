//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
)

// GiveToDirOwner gives a file a root run made to the owner of its
// directory (the user's, under sudo -E): the user's runs can read, lock
// and remove it.
func GiveToDirOwner(path string) {
	if os.Geteuid() != 0 {
		return
	}
	info, err := os.Stat(filepath.Dir(path))
	if err != nil {
		return
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid != 0 {
		_ = os.Lchown(path, int(st.Uid), int(st.Gid))
	}
}
