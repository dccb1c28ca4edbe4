package flush

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/filelock"
	"github.com/cursor-otel/cursor-otel/internal/spool"
)

// BackgroundTimeout bounds a delivery started by another run.
const BackgroundTimeout = time.Minute

// BackgroundLife is the most a background delivery's process lives: past
// BackgroundTimeout, a few seconds to wind down, and then its process
// ends itself, whatever it waits on.
const BackgroundLife = BackgroundTimeout + 5*time.Second

// In the state directory: the lock the one background delivery alive
// holds for its whole life, and the mark a run leaves to say there is
// more to deliver.
const (
	delivererLock = "deliverer.lock"
	againFile     = "deliver-again"
)

// Want says there is something to deliver in the state directory dir,
// and whether a background delivery must be started for it: none is when
// one is alive, which looks again before it ends.
func Want(dir string) (start bool) {
	if err := spool.MkdirAll(dir); err != nil {
		return false
	}
	// First the mark, then the look: a delivery ending now either sees
	// the mark, or was gone before the look.
	again := filepath.Join(dir, againFile)
	err := os.WriteFile(again, nil, 0o600)
	if errors.Is(err, fs.ErrPermission) && os.Remove(again) == nil {
		err = os.WriteFile(again, nil, 0o600) // another user's (a root run's): made anew
	}
	if err != nil {
		return false
	}
	unlock, err := filelock.LockOwn(filepath.Join(dir, delivererLock), false)
	if err != nil {
		return !errors.Is(err, filelock.ErrLocked)
	}
	unlock()
	return true
}

// Background is the delivery a run starts for itself: at most one alive
// for the state directory dir (another one alive makes this one end at
// once), bounded by BackgroundTimeout. Each round runs first (the hooks'
// turns, built into the spool), then delivers what is kept; it goes
// round again while runs asked for more meanwhile, or when first says a
// turn will be ready to build (waiting for it, its lock held: no second
// delivery starts meanwhile). It never starts another delivery, and what
// it cannot deliver stays as it was kept.
func Background(c Config, dir string, first func(context.Context) (again time.Time)) int {
	c.Background = true
	ctx, cancel := context.WithTimeout(context.Background(), BackgroundTimeout)
	defer cancel()
	unlock, err := filelock.LockOwn(filepath.Join(dir, delivererLock), false)
	if err != nil {
		return 0
	}
	defer unlock()
	status := 0
	for ctx.Err() == nil {
		_ = os.Remove(filepath.Join(dir, againFile))
		var again time.Time
		if first != nil {
			again = first(ctx)
		}
		status = Run(ctx, c)
		if _, err := os.Stat(filepath.Join(dir, againFile)); err == nil {
			continue
		}
		if again.IsZero() {
			return status
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Until(again)):
		}
	}
	return status
}

// busyPoll is how often a flush that waits for a background delivery
// looks whether it has ended: it holds a lock, and a lock says nothing
// when it is let go.
const busyPoll = 100 * time.Millisecond

// AwaitBackground waits, at most wait, until no background delivery is
// alive for the state directory dir, saying once that it waits (said is
// called then); false when one still is. A flush the user runs waits for
// it so as to do what was asked (deliver now, or redirect) rather than
// leave it to a delivery with other settings.
func AwaitBackground(ctx context.Context, dir string, wait time.Duration, said func()) bool {
	return await(ctx, wait, said, func() bool {
		unlock, err := filelock.Lock(filepath.Join(dir, delivererLock), false)
		if err != nil {
			return !errors.Is(err, filelock.ErrLocked) // no state yet: none alive
		}
		unlock()
		return true
	})
}

// await polls free until it says true, at most wait; said is called once
// when the first look is not.
func await(ctx context.Context, wait time.Duration, said func(), free func() bool) bool {
	deadline := time.Now().Add(wait)
	for first := true; ; first = false {
		if free() {
			return true
		}
		if first && said != nil {
			said()
		}
		if !time.Now().Before(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(min(busyPoll, time.Until(deadline))):
		}
	}
}
