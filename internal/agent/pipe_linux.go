package agent

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is how much the agent may write to its stdout before the pump
// reads it: a pipe's default, 64 KiB, makes a flood of output cross in
// many small, alternating steps.
const pipeSize = 1 << 20

// widen makes a pipe hold pipeSize bytes. Only Linux can resize a pipe;
// elsewhere the system's size stands (see pipe_other.go).
func widen(f *os.File) {
	if raw, err := f.SyscallConn(); err == nil {
		_ = raw.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize) })
	}
}
