//go:build windows

package main

import "golang.org/x/sys/windows"

// killSelf ends this process as Windows ends one from outside (Task
// Manager's TerminateProcess), or as a crash does (an access violation's
// status), for how KILL or SEGV.
func killSelf(how string) {
	code := uint32(1)
	if how == "SEGV" {
		code = 0xC0000005 // STATUS_ACCESS_VIOLATION
	}
	_ = windows.TerminateProcess(windows.CurrentProcess(), code)
}
