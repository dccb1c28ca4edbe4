//go:build unix

package hook

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// repairOwner mends a state directory an older version's root run
// (sudo -E) left root's, 0700, in the user's home, which shut the
// user's hooks out: run as root, it gives it back to the owner of the
// directory above it; run as the user, who cannot, it moves it aside
// (keeping it) so that the user's hooks start anew. It says whether it
// changed anything.
func repairOwner(dir string) bool {
	info, err := os.Stat(dir)
	if err != nil {
		return false
	}
	parent, err := os.Stat(filepath.Dir(dir))
	if err != nil {
		return false
	}
	st, ok1 := info.Sys().(*syscall.Stat_t)
	pst, ok2 := parent.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 || st.Uid == pst.Uid {
		return false
	}
	if os.Geteuid() == 0 {
		if pst.Uid == 0 {
			return false
		}
		_ = filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
			if err == nil {
				_ = os.Lchown(path, int(pst.Uid), int(pst.Gid))
			}
			return nil
		})
		return true
	}
	if int(pst.Uid) != os.Geteuid() || syscall.Access(dir, 7) == nil { // rwx: usable as it is
		return false
	}
	return os.Rename(dir, dir+".another-user-"+strconv.FormatInt(time.Now().UnixNano(), 10)) == nil
}
