package tracer

import (
	"testing"
	"time"
)

// A wait given up at a deadline, then exports starting and ending while
// it is still asked: what a WaitGroup calls reuse before Wait returned.
func TestFlightsMayStartWhileWaitedOn(t *testing.T) {
	var f flights
	select {
	case <-f.none():
	default:
		t.Fatal("no export under way, yet none() is open")
	}
	for range 1000 {
		f.start()
		waited := f.none()
		f.start()
		f.done()
		select {
		case <-waited:
			t.Fatal("none() closed with an export still under way")
		default:
		}
		f.done()
		select {
		case <-waited:
		case <-time.After(time.Second):
			t.Fatal("none() still open after every export returned")
		}
	}
}
