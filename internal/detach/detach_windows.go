//go:build windows

package detach

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// No console (so no window, and no Ctrl-C or Ctrl-Break from this one's),
// and a process group of its own. This process may be in a job object
// that kills its members when it closes (Node's child processes are: a
// hook run by Cursor), so the first attempt also leaves the job; a job
// that forbids that refuses the start, and the second attempt stays in it.
func attempts() []*syscall.SysProcAttr {
	detached := uint32(windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS)
	return []*syscall.SysProcAttr{
		{CreationFlags: detached | windows.CREATE_BREAKAWAY_FROM_JOB},
		{CreationFlags: detached},
	}
}
