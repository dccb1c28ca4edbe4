package acp

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestBatcherExportsOnIdleAndOnSchedule: turns that end while messages
// keep crossing go at the schedule; once the session is idle, at once;
// nothing goes before a turn ended, or after stop.
func TestBatcherExportsOnIdleAndOnSchedule(t *testing.T) {
	var last atomic.Int64
	last.Store(time.Now().UnixNano())
	exports := make(chan time.Time, 10)
	b := newBatcher(func() time.Time { return time.Unix(0, last.Load()) }, func() { exports <- time.Now() })
	b.idle, b.every = 200*time.Millisecond, 600*time.Millisecond
	done := make(chan struct{})
	go func() { defer close(done); b.run() }()

	select {
	case <-exports:
		t.Fatal("exported with no turn ended")
	case <-time.After(300 * time.Millisecond):
	}

	// Messages crossing every 20 ms: never idle, so the schedule decides.
	busy := make(chan struct{})
	go func() {
		for {
			select {
			case <-busy:
				return
			case <-time.After(20 * time.Millisecond):
				last.Store(time.Now().UnixNano())
			}
		}
	}()
	last.Store(time.Now().UnixNano())
	ended := time.Now()
	b.turnEnded()
	at := <-exports
	close(busy)
	if took := at.Sub(ended); took < b.every || took > b.every+time.Second {
		t.Errorf("busy session: exported %v after the turn, want about %v", took, b.every)
	}

	// Idle: the turn goes once nothing crossed for b.idle.
	last.Store(time.Now().UnixNano())
	ended = time.Now()
	b.turnEnded()
	at = <-exports
	if took := at.Sub(ended); took < b.idle-10*time.Millisecond || took >= b.every {
		t.Errorf("idle session: exported %v after the turn, want about %v", took, b.idle)
	}

	b.turnEnded()
	b.stop()
	<-done
	select {
	case <-exports:
		t.Error("exported after stop")
	default:
	}
}
