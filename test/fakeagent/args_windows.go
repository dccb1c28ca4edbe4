//go:build windows

package main

import (
	"golang.org/x/sys/windows"

	"github.com/cursor-otel/cursor-otel/internal/winargs"
)

// args are the arguments the stand-in was given, read from its command
// line as cursor-agent (node.exe, Microsoft's C runtime) reads its own,
// not by Go's older rule: what a .cmd shim passes on reaches the real
// agent so.
func args() []string {
	words := winargs.Split(windows.UTF16PtrToString(windows.GetCommandLine()))
	if len(words) == 0 {
		return nil
	}
	return words[1:]
}
