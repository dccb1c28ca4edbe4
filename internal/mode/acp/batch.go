package acp

import (
	"sync"
	"time"
)

// A session's turns are exported in batches: once the session has been
// idle for idleExport after a turn ended (an editor waiting on its user:
// nothing crosses, and the export takes no core a message needs), and
// otherwise exportEvery after the first turn of the batch ended (a
// client that never pauses), and what is left when the session ends.
// One export a turn, each 2 ms after the turn, took 0.3 s of CPU per
// 600 prompts from the cores the messages cross on (docs/performance.md
// says how the two were chosen).
const (
	idleExport  = time.Second
	exportEvery = 5 * time.Second
)

// batcher decides when the turns that ended are exported, on a goroutine
// of its own (run): the reader only tells it that a turn ended.
type batcher struct {
	idle, every time.Duration    // idleExport, exportEvery
	last        func() time.Time // when the last message crossed, either way
	export      func()
	ended       chan struct{} // a turn ended since the last export began
	done        chan struct{} // closed by stop
	once        sync.Once
}

func newBatcher(last func() time.Time, export func()) *batcher {
	return &batcher{idle: idleExport, every: exportEvery, last: last, export: export, ended: make(chan struct{}, 1), done: make(chan struct{})}
}

// turnEnded is called on the reader's goroutine; it never waits.
func (b *batcher) turnEnded() {
	select {
	case b.ended <- struct{}{}:
	default: // told already
	}
}

// stop ends run, an export under way finished first; what is left is the
// session end's to export.
func (b *batcher) stop() { b.once.Do(func() { close(b.done) }) }

// run exports a batch once a turn ended and the session is then idle
// for b.idle, or b.every after that turn, until stop.
func (b *batcher) run() {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-b.ended:
		case <-b.done:
			return
		}
		due := time.Now().Add(b.every)
		for {
			wait := min(time.Until(due), time.Until(b.last().Add(b.idle)))
			if wait <= 0 {
				break
			}
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-b.done:
				timer.Stop()
				return
			}
		}
		select {
		case <-b.done: // the session's end exports what is left
			return
		default:
		}
		b.export()
	}
}
