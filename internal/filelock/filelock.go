// Package filelock takes an exclusive advisory lock on a file, one that
// the operating system releases when the process holding it dies (flock
// on unix, LockFileEx on Windows), so that no crash leaves a lock behind.
package filelock

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrLocked is what Lock without waiting returns when another holds the
// lock.
var ErrLocked = errors.New("locked by another process")

// Lock takes the exclusive lock on path, creating the file (0600) when
// there is none. With wait it blocks until the lock is free; without, it
// fails at once, with an error that errors.Is ErrLocked, when another
// process (or another Lock in this one) holds it. unlock releases it.
func Lock(path string, wait bool) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := lock(f, wait); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = unlockFile(f)
		f.Close()
	}, nil
}

// LockOwn is Lock for a lock file in a directory another user writes to
// as well (a root run, sudo -E, in a user's state directory): when path
// cannot be opened for want of permission (another user made it, 0600),
// this user's own lock beside it, PATH.UID, is taken instead, by every
// process of this user alike. Users locking apart must work on things
// apart: the spool's deliverers each deliver only their own user's files.
func LockOwn(path string, wait bool) (unlock func(), err error) {
	unlock, err = Lock(path, wait)
	if err == nil || !errors.Is(err, fs.ErrPermission) || os.Getuid() < 0 {
		return unlock, err
	}
	return Lock(fmt.Sprintf("%s.%d", path, os.Getuid()), wait)
}
