//go:build windows

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// The whole file, as far as it could ever reach: the lock is on the name,
// not on bytes anyone reads.
const allLow, allHigh = ^uint32(0), ^uint32(0)

// lock takes LockFileEx's exclusive lock, which belongs to the handle: a
// second open of the same file contends with the first, in this process
// or another.
func lock(f *os.File, wait bool) error {
	flags := uint32(windows.LOCKFILE_EXCLUSIVE_LOCK)
	if !wait {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, allLow, allHigh, new(windows.Overlapped))
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return ErrLocked
	}
	return err
}

func unlockFile(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, allLow, allHigh, new(windows.Overlapped))
}
