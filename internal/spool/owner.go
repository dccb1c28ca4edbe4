package spool

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// A spool another user wrote into (a root run with sudo -E keeps its
// sessions in the user's spool, 0600 and root's) is shared: each user's
// deliveries send, drop and count as damaged only their own user's parts;
// another's are left for their owner, counted, and their files named by
// flush. Locks the user cannot open are the user's own beside them
// (filelock.LockOwn); small files another user left where this one
// writes are replaced (the directory is this user's).

// Foreign is what of the spool belongs to another user.
type Foreign struct {
	UID      int      // the first other owner met
	Sessions int      // kept sessions of another user, left for it
	Files    []string // the names of another user's files, parts aside
	Parts    int      // its parts
}

// Any says another user has files in the spool.
func (f Foreign) Any() bool { return f.Parts+len(f.Files) > 0 }

// Foreign lists what of the spool belongs to another user.
func (d *Dir) Foreign() Foreign {
	var f Foreign
	entries, _ := os.ReadDir(d.Path)
	sessions := map[string]bool{}
	found := false
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		uid, other := ownerOther(info)
		if !other {
			continue
		}
		if !found {
			f.UID, found = uid, true
		}
		if p, ok := parsePart(e.Name(), info); ok {
			f.Parts++
			sessions[p.trace] = true
			continue
		}
		f.Files = append(f.Files, e.Name())
	}
	f.Sessions = len(sessions)
	slices.SortFunc(f.Files, cmp.Compare)
	return f
}

// writeOwn writes a small file of the spool's, replacing one another
// user left there that this one cannot write.
func writeOwn(path string, data []byte) error {
	err := os.WriteFile(path, data, 0o600)
	if errors.Is(err, fs.ErrPermission) && os.Remove(path) == nil {
		err = os.WriteFile(path, data, 0o600)
	}
	return err
}

// openAppendOwn opens a log of the spool's to append to, replacing one
// another user left there that this one cannot write.
func openAppendOwn(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrPermission) && os.Remove(path) == nil {
		f, err = os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	}
	return f, err
}

// own says a file of the spool is this user's (another's is left alone:
// nothing of it is pending for this user).
func (d *Dir) own(name string) bool {
	info, err := os.Lstat(filepath.Join(d.Path, name))
	if err != nil {
		return false
	}
	_, other := ownerOther(info)
	return !other
}
