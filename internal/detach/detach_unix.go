//go:build unix

package detach

import "syscall"

// A session of its own: no controlling terminal, its own process group.
func attempts() []*syscall.SysProcAttr {
	return []*syscall.SysProcAttr{{Setsid: true}}
}
