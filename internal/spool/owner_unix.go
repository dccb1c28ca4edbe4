//go:build unix

package spool

import (
	"io/fs"
	"os"
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
