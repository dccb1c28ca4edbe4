package tracer

import (
	"sync"
	"time"
)

// Waiting is how a flush that waits for a busy collector stands
// (Config.WaitWhileAnswered): what the user waits for.
type Waiting struct {
	Taken int // spans the collector took
	Spans int // of the spans the run made
	// SinceAnswer is how long ago the collector last answered; zero
	// when it has not answered yet.
	SinceAnswer time.Duration
	Endpoint    string // where the spans go
}

// waitingEvery is how often a flush that waits says how it stands, after
// the first time.
const waitingEvery = 5 * time.Second

// tellWaiting tells the Waiting callback how the flush stands once it has
// waited the flush timeout past the run's end (when a run that does not
// wait would have ended), then every waitingEvery, until stop, which
// returns when nothing more will be told.
func (p *Provider) tellWaiting() (stop func()) {
	if p.waiting == nil || p.guard == nil {
		return func() {}
	}
	done := make(chan struct{})
	var telling sync.WaitGroup
	telling.Go(func() {
		t := time.NewTimer(time.Until(p.flush.ended().Add(p.flushTimeout)))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			p.waiting(p.waitingNow())
			t.Reset(waitingEvery)
		}
	})
	return func() { close(done); telling.Wait() }
}

// waitingNow is how the flush stands now.
func (p *Provider) waitingNow() Waiting {
	exported, _, _ := p.guard.result()
	w := Waiting{Taken: exported + int(p.handedDelivered.Load()), Spans: int(p.ended.Load()), Endpoint: p.settings.traces.endpoint}
	if last := p.flush.lastAnswer(); !last.IsZero() {
		w.SinceAnswer = time.Since(last)
	}
	return w
}
