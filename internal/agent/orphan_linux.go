package agent

import (
	"syscall"
	"time"
)

// watchdogDelay is how long the agent runs before its process group gets
// the watchdog: until then the kernel's parent-death signal (below) ends
// the agent if cursor-otel dies, and a short run (most of a small run's
// agents end in milliseconds) never pays for the watchdog's shell.
const watchdogDelay = 100 * time.Millisecond

// guardEarly asks the kernel to SIGKILL the agent when the thread that
// started it dies: from its first instant, before any watchdog runs. The
// thread is cursor-otel's own, held (runtime.LockOSThread) until the agent
// is reaped, so only cursor-otel's death fires it.
func guardEarly(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
