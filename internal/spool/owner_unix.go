//go:build unix

package spool

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ownerOther is the owner of a file another user owns (a root run's, in
// a user's spool), and whether another does.
func ownerOther(info fs.FileInfo) (uid int, other bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), int(st.Uid) != os.Geteuid()
}

// MkdirAll makes dir (0700) and what is missing above it. Run as root
// inside another user's directory (sudo -E, the user's HOME), what it
// makes is given to that user, as the files a user's home holds are:
// a spool root made would shut the user out of it.
func MkdirAll(dir string) error {
	existing := filepath.Clean(dir)
	for {
		if _, err := os.Stat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		existing = parent
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	info, err := os.Stat(existing)
	if err != nil || os.Geteuid() != 0 || existing == filepath.Clean(dir) {
		return nil
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == 0 {
		return nil
	}
	for d := filepath.Clean(dir); d != existing && d != filepath.Dir(d); d = filepath.Dir(d) {
		_ = os.Lchown(d, int(st.Uid), int(st.Gid))
	}
	return nil
}
