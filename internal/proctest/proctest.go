// Package proctest runs programs that start programs (cursor-otel, which
// starts an agent, which may be cursor-otel again) so that a test never
// leaves one running: each in a process group of its own, under a
// deadline, and at the end every descendant, in whatever process group,
// is killed.
package proctest

import (
	"os/exec"
	"testing"
	"time"
)

// Start starts cmd in a process group of its own. After deadline, or when
// the test ends, cmd and all its descendants are killed.
func Start(t testing.TB, cmd *exec.Cmd, deadline time.Duration) {
	t.Helper()
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	timer := time.AfterFunc(deadline, func() { KillTree(pid) })
	t.Cleanup(func() {
		timer.Stop()
		KillTree(pid)
	})
}
