package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// On Linux the kernel's parent-death signal guards the agent from its
// start and the watchdog of its process group comes once it has run a
// while (TestNoOrphanedAgent kills cursor-otel as soon as the agent runs):
// an agent killed after its watchdog started dies too.
func TestNoOrphanedAgentOnceWatched(t *testing.T) {
	cmd, agentPid := startWithHangingAgent(t)
	deadline := time.Now().Add(10 * time.Second)
	for !watchdogRuns(agentPid) {
		if time.Now().After(deadline) {
			t.Fatalf("no watchdog guards the agent (%d) 10 s after its start", agentPid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	killedAgentDies(t, cmd, agentPid)
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
