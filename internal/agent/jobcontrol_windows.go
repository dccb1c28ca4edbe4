//go:build windows

package agent

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// jobControl stands in for the agent towards the console. Windows' console
// sends Ctrl-C and Ctrl-Break to every process attached to it, the agent
// as well as cursor-otel (and closing the window, logging off or shutting
// down, which Go reads as SIGTERM): nothing is forwarded, or it would
// reach the agent twice. cursor-otel catches them so that they do not end
// it, leaves the agent to decide what they mean, waits for it and
// flushes; each is recorded as a signal the agent was sent.
type jobControl struct {
	signals chan os.Signal
	quit    chan struct{}

	mu      sync.Mutex
	started bool // the agent runs
	early   bool // an interrupt came before the agent started
	done    bool
	seen    []Signal
}

func newJobControl(...*os.File) *jobControl {
	j := &jobControl{signals: make(chan os.Signal, 8), quit: make(chan struct{})}
	signal.Notify(j.signals, os.Interrupt, syscall.SIGTERM)
	go j.loop()
	return j
}

func (j *jobControl) loop() {
	for {
		select {
		case sig := <-j.signals:
			j.mu.Lock()
			if !j.done {
				j.seen = append(j.seen, Signal{Signal: sig, At: time.Now()})
				j.early = j.early || !j.started
			}
			j.mu.Unlock()
		case <-j.quit:
			return
		}
	}
}

// begin says the agent started; true when an interrupt came before it
// did, which the console could not send it: the caller ends it, as the
// interrupt would have.
func (j *jobControl) begin(int) (interruptedBefore bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.started = true
	return j.early
}

// end is told the agent ended, and returns the signals it was sent.
func (j *jobControl) end() []Signal {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.done = true
	return j.seen
}

// release is told the agent was reaped and its output drained: the
// console's control events go back to their default, without waiting.
func (j *jobControl) release() { go j.stop() }

func (j *jobControl) stop() {
	signal.Stop(j.signals)
	close(j.quit)
}
