package e2e

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

// On Linux the kernel's parent-death signal guards the agent from its
// start and the watchdog of its process group comes once it has run a
// while (TestNoOrphanedAgent kills cursor-otel as soon as the agent runs):
// an agent killed after its watchdog started dies too.
func TestNoOrphanedAgentOnceWatched(t *testing.T) {
	env, _, pidfile := hangingAgent(t, otlptest.Down(t), "FAKEAGENT_ON_SIGNAL=continue")
	cmd := exec.Command(binary, streamArgs()...)
	cmd.Env = withBaseEnv(t, env)
	cmd.Stdout = io.Discard
	proctest.Start(t, cmd, 20*time.Second)
	agentPid, _ := strconv.Atoi(strings.TrimSpace(waitFile(t, pidfile, 1)))
	t.Cleanup(func() { syscall.Kill(agentPid, syscall.SIGKILL) })
	deadline := time.Now().Add(10 * time.Second)
	for !watchdogRuns(agentPid) {
		if time.Now().After(deadline) {
			t.Fatalf("no watchdog guards the agent (%d) 10 s after its start", agentPid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	// The agent ignores TERM here; the watchdog's KILL follows 2 s later.
	deadline = time.Now().Add(10 * time.Second)
	for proctest.Alive(agentPid) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent (%d) still runs 10 s after cursor-otel was killed", agentPid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// watchdogRuns says whether a watchdog of pgid's process group runs: its
// command line names it, and the group.
func watchdogRuns(pgid int) bool {
	want := "\x00cursor-otel-watchdog\x00" + strconv.Itoa(pgid) + "\x00"
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, path := range cmdlines {
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), want) {
			return true
		}
	}
	return false
}
