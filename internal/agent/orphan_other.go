//go:build unix && !linux

package agent

import (
	"syscall"
	"time"
)

// watchdogDelay is none where the kernel has no parent-death signal: the
// watchdog guards the agent from its start.
const watchdogDelay time.Duration = 0

// guardEarly has nothing to set without a parent-death signal.
func guardEarly(*syscall.SysProcAttr) {}
