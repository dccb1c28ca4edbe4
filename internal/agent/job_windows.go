//go:build windows

package agent

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// jobObject holds the agent and every process it starts. It is made to
// end them all when its last handle closes, and cursor-otel holds that
// handle: however cursor-otel ends (a crash, Task Manager, a CI runner
// killing it), Windows closes the handle and the agent does not run on
// orphaned. Windows' counterpart of the unix watchdog.
type jobObject struct {
	mu sync.Mutex
	h  windows.Handle // 0 once released
}

func newJobObject() (*jobObject, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("job object: %w", err)
	}
	j := &jobObject{h: h}
	// BREAKAWAY_OK: a process the agent starts to outlive it (asking to
	// leave the job) may, as a unix one may leave its process group.
	if err := j.limit(windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | windows.JOB_OBJECT_LIMIT_BREAKAWAY_OK); err != nil {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("job object: %w", err)
	}
	return j, nil
}

func (j *jobObject) limit(flags uint32) error {
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = flags
	_, err := windows.SetInformationJobObject(j.h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	return err
}

// assign puts the process pid in the job; what it starts from then on is
// in it too.
func (j *jobObject) assign(pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.AssignProcessToJobObject(j.h, h)
}

// terminate ends every process in the job, with status code.
func (j *jobObject) terminate(code uint32) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.h == 0 {
		return errors.New("job object released")
	}
	return windows.TerminateJobObject(j.h, code)
}

// release lets the job go without ending what is left in it: the agent
// ended, and what it left running is its own (as on unix).
func (j *jobObject) release() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.h == 0 {
		return
	}
	_ = j.limit(windows.JOB_OBJECT_LIMIT_BREAKAWAY_OK)
	windows.CloseHandle(j.h)
	j.h = 0
}

// startInJob starts l's program with argv and env, its standard handles
// files, in a new job object: created suspended, put in the job, then let
// run, so that nothing it starts escapes the job by starting first.
// Without a job object (one that cannot be made or joined) the program
// still runs, unguarded: job is nil.
func startInJob(l launch, argv, env []string, files []*os.File) (proc *os.Process, job *jobObject, err error) {
	job, _ = newJobObject()
	var flags uint32
	if job != nil {
		flags = windows.CREATE_SUSPENDED
	}
	proc, err = os.StartProcess(l.app, argv, &os.ProcAttr{
		Env:   env,
		Files: files,
		Sys:   &syscall.SysProcAttr{CmdLine: l.cmdLine, CreationFlags: flags},
	})
	if err != nil {
		if job != nil {
			job.release()
		}
		return nil, nil, err
	}
	if job == nil {
		return proc, nil, nil
	}
	if err := job.assign(proc.Pid); err != nil {
		job.release()
		job = nil
	}
	if err := resume(proc.Pid); err != nil {
		_ = proc.Kill()
		_, _ = proc.Wait()
		if job != nil {
			job.release()
		}
		return nil, nil, fmt.Errorf("resume: %w", err)
	}
	return proc, job, nil
}

// resume lets the threads of the suspended process pid run (a process
// created suspended has one).
func resume(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != uint32(pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return err
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("no thread of process %d", pid)
	}
	return nil
}
