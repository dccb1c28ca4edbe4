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
// records, which may add to the kept sessions), then delivers what is
// kept; it goes round again while runs asked for more meanwhile. It never
// starts another delivery, and what it cannot deliver stays as it was
// kept.
func Background(c Config, dir string, first func(context.Context)) int {
	c.Background = true
	ctx, cancel := context.WithTimeout(context.Background(), BackgroundTimeout)
	defer cancel()
	status := 0
	for ctx.Err() == nil {
		unlock, err := filelock.LockOwn(filepath.Join(dir, delivererLock), false)
		if err != nil {
			return status
		}
		_ = os.Remove(filepath.Join(dir, againFile))
		if first != nil {
			first(ctx)
		}
		status = Run(ctx, c)
		unlock()
		if _, err := os.Stat(filepath.Join(dir, againFile)); err != nil {
			return status
		}
	}
	return status
}
