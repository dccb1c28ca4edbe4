//go:build windows

package proctest

import (
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// ownGroup has cmd start in a process group of its own (a Ctrl-Break for
// the test's console group does not reach it).
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

// KillTree kills pid's descendants, then pid. Descendants are listed
// before any is killed.
func KillTree(pid int) {
	for _, p := range append(Descendants(pid), pid) {
		if h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(p)); err == nil {
			_ = windows.TerminateProcess(h, 1)
			windows.CloseHandle(h)
		}
	}
}

// Descendants lists pid's children, their children, and so on.
func Descendants(pid int) []int {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil
	}
	defer windows.CloseHandle(snap)
	children := map[uint32][]uint32{}
	entry := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	for err = windows.Process32First(snap, &entry); err == nil; err = windows.Process32Next(snap, &entry) {
		children[entry.ParentProcessID] = append(children[entry.ParentProcessID], entry.ProcessID)
	}
	var out []int
	queue := []uint32{uint32(pid)}
	seen := map[uint32]bool{uint32(pid): true}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if !seen[c] { // Windows reuses ids: a parent id may name a newer process
				seen[c] = true
				out = append(out, int(c))
				queue = append(queue, c)
			}
		}
	}
	return out
}

// Alive says a process pid exists and has not exited.
func Alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}
