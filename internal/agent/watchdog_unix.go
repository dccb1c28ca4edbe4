//go:build unix

package agent

import (
	"io"
	"os"
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
	w io.WriteCloser
}

// startWatchdog guards the agent's process group pgid. The watchdog runs
// in a process group of its own, so that a kill of cursor-otel's group
// does not take it along. Started as the agent is (forkExec), not through
// os/exec: a process's first os.StartProcess forks a child of its own to
// see whether pidfds work: a run's CPU spent for nothing here
// (docs/performance.md, "measured choices").
func startWatchdog(pgid int) (*watchdog, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close() // the watchdog holds its own
	// Its stdout and stderr are /dev/null, as os/exec made them; without
	// it they are closed, which the script's kill copes with.
	null, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	defer null.Close()
	argv := []string{"/bin/sh", "-c", watchdogScript, "cursor-otel-watchdog", strconv.Itoa(pgid)}
	pid, err := forkExec(argv[0], argv, nil, []*os.File{r, null, null})
	if err != nil {
		w.Close()
		return nil, err
	}
	go func() { // reaped when it ends, whenever that is
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
				return
			}
		}
	}()
	return &watchdog{w: w}, nil
}

// release lets the watchdog go without doing anything.
func (w *watchdog) release() {
	_, _ = io.WriteString(w.w, "done\n")
	_ = w.w.Close()
}
