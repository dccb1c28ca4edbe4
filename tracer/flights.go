package tracer

import "sync"

// flights counts the exports under way. Unlike a sync.WaitGroup it may
// be waited on while new exports start: a wait abandoned at a deadline
// must not make the next export's start a misuse.
type flights struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed while n is 0
}

// start counts one more export under way.
func (f *flights) start() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		f.idle = make(chan struct{})
	}
	f.n++
}

// done counts one export as returned.
func (f *flights) done() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n--; f.n == 0 {
		close(f.idle)
	}
}

// none returns a channel closed once no export is under way; the exports
// started after it was asked for do not hold it open.
func (f *flights) none() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		c := make(chan struct{})
		close(c)
		return c
	}
	return f.idle
}
