//go:build unix

package conversation

import (
	"os"
	"syscall"
)

// openRecord opens path for writing if it is a record of size bytes: a
// regular file with one link, not followed through a symbolic link (a
// root run, sudo -E, writes in its user's directory, and must not be
// led to write over a file elsewhere).
func openRecord(path string, size int64) (*os.File, bool) {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && info.Size() == size {
		if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Nlink == 1 {
			return f, true
		}
	}
	f.Close()
	return nil, false
}
