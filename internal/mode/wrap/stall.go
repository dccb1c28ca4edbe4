package wrap

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/agent"
)

// stopGrace is how long a stalled agent has after TERM before KILL.
const stopGrace = 5 * time.Second

// watchStalls stops the agent (TERM, then KILL) once it has written
// nothing for timeout: the one thing cursor-otel does to the agent on its
// own, because the user asked for it (--stall-timeout). done ends the
// watch and says whether it stopped the agent.
func watchStalls(proc *agent.Process, timeout time.Duration, say func(string)) (done func() bool) {
	var stopped atomic.Bool
	quit := make(chan struct{})
	tick := time.NewTicker(min(max(timeout/4, 10*time.Millisecond), time.Second))
	go func() {
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case now := <-tick.C:
				if silent := now.Sub(proc.LastOutput()); silent >= timeout {
					stopped.Store(true)
					say(fmt.Sprintf("no output from cursor-agent for %s: stopping it (--stall-timeout)", silent.Round(time.Second)))
					proc.Stop(stopGrace)
					return
				}
			}
		}
	}()
	return func() bool {
		close(quit)
		return stopped.Load()
	}
}
