//go:build unix

package agent

import (
	"io"
	"os/exec"
	"strconv"
	"syscall"
)

// watchdogScript ends the agent's process group when cursor-otel dies
// without saying it is done: its stdin, a pipe only cursor-otel writes to,
// reaches end of file when cursor-otel's descriptors close, on any death
// (SIGKILL and the OOM killer included). TERM first, then KILL after a
// grace. It is a POSIX shell script, the same on macOS and Linux.
const watchdogScript = `read -r word; [ "$word" = done ] && exit 0; kill -TERM -"$1" 2>/dev/null; sleep 2; kill -KILL -"$1" 2>/dev/null; exit 0`

// watchdog is the running guard; release tells it the agent ended.
type watchdog struct {
	w   io.WriteCloser
	cmd *exec.Cmd
}

// startWatchdog guards the agent's process group pgid. The watchdog runs
// in a process group of its own, so that a kill of cursor-otel's group
// does not take it along.
func startWatchdog(pgid int) (*watchdog, error) {
	cmd := exec.Command("/bin/sh", "-c", watchdogScript, "cursor-otel-watchdog", strconv.Itoa(pgid))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = cmd.Wait() }() // reaped when it ends, whenever that is
	return &watchdog{w: w, cmd: cmd}, nil
}

// release lets the watchdog go without doing anything.
func (w *watchdog) release() {
	_, _ = io.WriteString(w.w, "done\n")
	_ = w.w.Close()
}
