package flush

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/mode/hook"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

// Asked is what the user asked of the flush command besides delivering:
// to list what is kept, or to discard a destination's (--list,
// --discard).
type Asked struct {
	List    bool
	Discard string
}

// Command is the flush command: it builds what the hooks recorded and
// not yet built, then delivers what earlier runs kept (Run); or lists or
// discards, as asked. state is the hooks' state directory.
func Command(ctx context.Context, c Config, state string, asked Asked) int {
	s := c.Settings
	if asked.List || asked.Discard != "" {
		c.Settings.Spool = spoolOf(c, state)
		if asked.List {
			return List(c)
		}
		return Discard(ctx, c, asked.Discard)
	}
	// A background delivery alive has other settings, maybe: this flush
	// waits for it to end, and then does what was asked itself.
	if !AwaitBackground(ctx, lockDir(s, state), BackgroundLife, func() {
		fmt.Fprintf(c.Stderr, "cursor-otel: a background delivery is at work; waiting for it to end (at most %s)\n", BackgroundLife)
	}) {
		fmt.Fprintf(c.Stderr, "cursor-otel: a background delivery has been at work for over %s; nothing sent: run cursor-otel flush again once it ends\n", BackgroundLife)
		return 1
	}
	// Turns whose stop came within the grace are built once it ends: the
	// user asked for what is there now.
	build := hook.BuildConfig{Settings: s, Environ: c.Environ, Getenv: c.Getenv, StateDir: state}
	for again := hook.Build(ctx, build); !again.IsZero() && time.Until(again) <= spanmap.HookGrace; again = hook.Build(ctx, build) {
		time.Sleep(time.Until(again))
	}
	c.HookSetAside = hook.SetAside(state)
	c.Settings.Spool = spoolOf(c, state)
	return Run(ctx, c)
}

// spoolOf is the spool a flush looks in: the settings', or, with the
// spool off, the hooks' own when it is there, as it holds their turns.
func spoolOf(c Config, state string) string {
	if kept := hook.SpoolDir(c.Settings, state); c.Settings.Spool == "" && exists(kept) {
		return kept
	}
	return c.Settings.Spool
}

// exists says a file or directory is there.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
