package flush

import (
	"cmp"
	"context"
	"os"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/conversation"
	"github.com/cursor-otel/cursor-otel/internal/mode/hook"
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// Env is this process's environment, read each time it is used: what a
// run starts, it starts with the environment of that moment.
type Env struct {
	Getenv  func(string) string
	Environ func() []string
}

// lockDir is where the one background delivery of these settings holds
// its lock: the spool, or the hooks' state (state) when there is none.
func lockDir(s settings.Settings, state string) string {
	return cmp.Or(s.Spool, state)
}

// StartFor starts the background delivery (Start) for these settings;
// add is added to the environment, and says where the hooks' state is
// when it is not where the environment says.
func StartFor(s settings.Settings, env Env, add ...string) {
	environ := append(env.Environ(), add...)
	Start(lockDir(s, conversation.DefaultDir(environ)), environ)
}

// DeliverKept starts a background delivery of what earlier runs kept for
// the collector set now, if anything is: a run never waits for it.
func DeliverKept(s settings.Settings, env Env) func() {
	return func() {
		if HasKept(s, env.Getenv) {
			StartFor(s, env)
		}
	}
}

// Deliverer starts the background delivery a run hands its last spans
// over to.
func Deliverer(s settings.Settings, env Env) func() {
	return func() { StartFor(s, env) }
}

// HasKept says earlier runs kept sessions for the collector set now.
func HasKept(s settings.Settings, getenv func(string) string) bool {
	if s.Spool == "" {
		return false
	}
	to, ok := tracer.Destination(getenv)
	return ok && spool.Open(s.Spool, s.SpoolMax).HasKept(to)
}

// Process is the background delivery StartFor starts (its command line
// is DelivererArg alone): the hooks' turns, built into the spool, then
// what earlier runs kept for the collector set now. It prints nothing,
// starts nothing, and ends its process by BackgroundLife whatever it
// waits on.
func Process(env Env) int {
	time.AfterFunc(BackgroundLife, func() { os.Exit(0) })
	s, problems := settings.Load(settings.Flags{}, env.Getenv)
	if problems != nil {
		return 0
	}
	environ := env.Environ()
	state := conversation.DefaultDir(environ)
	lock := lockDir(s, state)
	s.Spool = hook.SpoolDir(s, state) // with the spool off, the hooks' own
	return Background(Config{Settings: s, Getenv: env.Getenv, Environ: environ}, lock,
		func(ctx context.Context) time.Time {
			return hook.Build(ctx, hook.BuildConfig{Settings: s, Environ: environ, Getenv: env.Getenv, StateDir: state})
		})
}
