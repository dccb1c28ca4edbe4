//go:build unix

package agent

import (
	"sync"
	"time"
)

// lateGuard starts the watchdog of the agent's process group once the
// agent has run for a delay, unless it has ended by then: an agent that
// ends sooner never costs a watchdog (on Linux the kernel's parent-death
// signal guards it meanwhile; elsewhere the delay is none).
type lateGuard struct {
	mu    sync.Mutex
	ended bool
	w     *watchdog
	timer *time.Timer
}

// startGuard guards the process group pgid after delay (now when 0).
func startGuard(pgid int, delay time.Duration) *lateGuard {
	g := &lateGuard{}
	start := func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.ended {
			return
		}
		if w, err := startWatchdog(pgid); err == nil {
			g.w = w
		} // else tracing goes on; only the orphan guard is missing
	}
	if delay <= 0 {
		start()
		return g
	}
	g.mu.Lock()
	g.timer = time.AfterFunc(delay, start)
	g.mu.Unlock()
	return g
}

// end says the agent was reaped: no watchdog starts after it, and the one
// that started, if any, is returned for release.
func (g *lateGuard) end() *watchdog {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ended = true
	if g.timer != nil {
		g.timer.Stop()
	}
	return g.w
}
