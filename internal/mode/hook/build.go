package hook

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/conversation"
	"github.com/cursor-otel/cursor-otel/internal/harness"
	"github.com/cursor-otel/cursor-otel/internal/metrics"
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/internal/summary"
	"github.com/cursor-otel/cursor-otel/spanmap"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// BuildConfig is one run of the builder: the background delivery's, or
// flush's.
type BuildConfig struct {
	Settings settings.Settings
	Environ  []string
	Getenv   func(string) string
	StateDir string
	Now      func() time.Time // nil: time.Now
	// killAt, in tests, stops the build at a step, as a kill would.
	killAt func(step string) bool
}

// Build builds every turn closed by now, of every conversation, into the
// spool, each part under its turn's own destination; the delivery then
// sends them. It says when a turn waiting for its grace may be built
// (zero: none waits). Killed at any instruction, it leaves the old state
// or the new one: the next Build finishes what it started, and no turn
// is kept twice.
func Build(ctx context.Context, c BuildConfig) (again time.Time) {
	unlock, err := lockBuild(c.StateDir)
	if err != nil {
		return time.Time{}
	}
	b := c.builder(ctx)
	b.moveEarlier()
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
	}
	for _, name := range conversations(c.StateDir) {
		if next := b.conversation(name, now); !next.IsZero() && (again.IsZero() || next.Before(again)) {
			again = next
		}
		if b.killed {
			break
		}
	}
	forget(c.StateDir, now)
	unlock()
	b.close()
	return again
}

// builder builds turns into spans, then spool parts.
type builder struct {
	c      BuildConfig
	getenv func(string) string
	ctx    context.Context
	hooks  *spanmap.Hooks
	spool  *spool.Dir
	h      *harness.Harness
	got    *collected
	killed bool
	// reports are the files each hook turn's report goes to, by its
	// trace (see reportTo); files holds them, to be finished.
	reports map[trace.TraceID]*summary.Files
	persons map[trace.TraceID]settings.Person // the person of each trace, as its hooks allowed
	files   reportFiles
}

func (c BuildConfig) builder(ctx context.Context) *builder {
	s := c.Settings
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	// The spans are made as the settings would export them (resource,
	// sampler, reports), and kept rather than exported: the delivery
	// sends them from the spool.
	got := &collected{}
	b := &builder{c: c, getenv: getenv, ctx: ctx, got: got, reports: map[trace.TraceID]*summary.Files{}, files: reportFiles{},
		persons: map[trace.TraceID]settings.Person{}}
	h := harness.Start(ctx, harness.Setup{Settings: s, Environ: c.Environ, Getenv: func(name string) string {
		if name == "OTEL_TRACES_EXPORTER" {
			return "none"
		}
		return getenv(name)
	}, Configure: func(cfg *tracer.Config) {
		cfg.Spool = nil
		cfg.Processors = append(cfg.Processors, got)
	}, Route: func(id trace.TraceID) (*summary.Files, bool) {
		files, ok := b.reports[id]
		return files, ok
	}, Surface: metrics.SurfaceHooks, Person: func(id trace.TraceID) settings.Person { return b.persons[id] }})
	b.h, b.hooks, b.spool = h, spanmap.NewHooks(ctx, h.Provider.Tracer(), h.Recording()), spool.Open(SpoolDir(s, c.StateDir), s.SpoolMax)
	return b
}

// close ends the provider: reports and metrics, after the lock is let go.
func (b *builder) close() {
	ctx, cancel := context.WithTimeout(context.Background(), cmp.Or(b.c.Settings.FlushTimeout, tracer.DefaultFlushTimeout))
	defer cancel()
	_, _ = b.h.Close(ctx) // in the background: what it could not write, nobody would read
	b.files.finish()
}

// reportTurns sends the report of each trace built to where the hook
// that recorded the conversation's last event used said; an older
// version's entries, which say nothing, leave it to the builder's own
// settings.
func (b *builder) reportTurns(j journaled, built spanmap.HookBuilt) {
	var to *reportTo
	last := -1
	for _, i := range built.Used { // the journal is oldest first
		if r := j.reports[i]; r != nil && i > last {
			to, last = r, i
		}
	}
	var who *settings.Person
	for _, i := range built.Used {
		if p := j.persons[i]; p != nil {
			who = p // the latest entry's that names one
		}
	}
	if who != nil {
		for id := range built.Dest {
			b.persons[id] = *who
		}
	}
	if to == nil {
		return
	}
	files := b.files.of(*to)
	for id := range built.Dest {
		b.reports[id] = files
	}
	if files == nil {
		return
	}
	for _, e := range built.Ends {
		files.WriteEnd(summary.SessionEnd{SessionID: e.ConversationID, LastTrace: e.LastTrace, At: e.At,
			Reason: e.Reason, DurationMs: e.Duration.Milliseconds(), Turns: e.Turns})
	}
}

// hooksFor is the span model for a journal: content captured as its
// hooks said (all of them: a hook that captured nothing kept nothing to
// capture), whoever builds it, as a turn's reports go where its hook
// said; an older version's entries, which say nothing, leave it to the
// builder's own settings.
func (b *builder) hooksFor(j journaled) *spanmap.Hooks {
	capture, said := b.c.Settings.CaptureContent, false
	for _, c := range j.capture {
		if c != nil {
			capture, said = *c && (capture || !said), true
		}
	}
	if capture == b.c.Settings.CaptureContent {
		return b.hooks
	}
	opts := b.h.Recording()
	opts.CaptureContent = capture
	return spanmap.NewHooks(b.ctx, b.h.Provider.Tracer(), opts)
}

// kill says the build stops at step (tests alone).
func (b *builder) kill(step string) bool {
	if b.c.killAt != nil && b.c.killAt(step) {
		b.killed = true
	}
	return b.killed
}

// conversation builds one conversation's closed turns.
func (b *builder) conversation(name string, now time.Time) (again time.Time) {
	dir := b.c.StateDir
	cp, _ := loadCheckpoint(dir, name)
	if b.finish(name, &cp) != nil || b.killed {
		return time.Time{}
	}
	b.spool.Unstaged(name+"-", nil) // staged by a build killed before it wrote them down
	j := readJournal(dir, name, now)
	if len(j.entries) == 0 {
		_ = os.Remove(journalOf(dir, name)) // empty: a hook adding now makes it anew
		return time.Time{}
	}
	// The conversation's last turn, whoever traced it (a wrapped
	// --resume run, an ACP session): the next turn links to it.
	store := conversation.Store{Dir: dir}
	id := cmp.Or(cp.ConversationID, j.entries[0].Event.ConversationID)
	if root, ok := store.Last(id); ok {
		cp.Root = &spanmap.HookRoot{TraceID: root.TraceID().String(), SpanID: root.SpanID().String()}
	}
	was := cp.Root
	hooks := b.hooksFor(j)
	built := hooks.Build(&cp.HookState, j.entries, now)
	if len(built.Used) == 0 {
		return built.Again
	}
	if cp.Root != was {
		cp.SetLast = &lastTurn{ConversationID: id, Root: cp.Root} // recorded by finish, once written down
	}
	cp.Late += built.Late
	b.reportTurns(j, built)
	stamp := now.UnixNano()
	key := name + "-" + strconv.FormatInt(stamp, 10)
	var dests []string
	for _, d := range built.Dest {
		if !slices.Contains(dests, d) {
			dests = append(dests, d)
		}
	}
	slices.Sort(dests)
	for _, d := range dests {
		hooks.Make(built, d)
		spans := b.got.take()
		if d == noOTLP || d == "" {
			continue // no OTLP collector was set: reported, and sent nowhere
		}
		staged, tooLarge, err := b.spool.Stage(d, key, stamp, spans)
		if err == nil {
			b.sendTooLarge(d, tooLarge)
		}
		if err != nil || b.kill("staged") {
			if !b.killed {
				b.spool.Unstaged(name+"-", nil)
			}
			return time.Time{}
		}
		cp.Staged = append(cp.Staged, staged...)
	}
	for _, i := range built.Used {
		cp.Consumed = append(cp.Consumed, filepath.Base(j.files[i]))
	}
	if err := saveCheckpoint(dir, name, &cp); err != nil || b.kill("written") {
		if !b.killed {
			b.spool.Unstaged(name+"-", nil)
		}
		return time.Time{}
	}
	_ = b.finish(name, &cp)
	return built.Again
}

// finish publishes a build's staged parts and removes the journal's
// entries it used, then writes the checkpoint down without them: each
// step is done once, however often it is run.
func (b *builder) finish(name string, cp *checkpoint) error {
	if len(cp.Staged) == 0 && len(cp.Consumed) == 0 && cp.SetLast == nil {
		return nil
	}
	if err := b.spool.Publish(cp.Staged); err != nil {
		return err
	}
	if b.kill("published") {
		return nil
	}
	for _, f := range cp.Consumed {
		_ = os.Remove(filepath.Join(journalOf(b.c.StateDir, name), f))
	}
	if b.kill("consumed") {
		return nil
	}
	if l := cp.SetLast; l != nil && l.Root != nil {
		conversation.Store{Dir: b.c.StateDir}.SetLast(l.ConversationID, l.Root.SpanContext())
	}
	cp.Staged, cp.Consumed, cp.SetLast = nil, nil, nil
	return saveCheckpoint(b.c.StateDir, name, cp)
}

// sendTooLarge sends the turns too large for the spool's bound to the
// collector now, when they were going to the one set now (a bound is for
// what waits: with the collector up, every turn arrives); what does not
// go is dropped, and said so by the next delivery a person reads.
func (b *builder) sendTooLarge(dest string, sessions [][]sdktrace.ReadOnlySpan) {
	if len(sessions) == 0 {
		return
	}
	dropped := len(sessions)
	if to, ok := tracer.Destination(b.getenv); ok && b.spool.IDs(to)[dest] {
		if del, _, err := harness.NewDelivery(b.ctx, harness.Setup{Settings: b.c.Settings, Environ: b.c.Environ, Getenv: b.getenv}); err == nil {
			ctx, cancel := context.WithTimeout(b.ctx, tracer.ExportTimeout(b.getenv))
			send := del.Export().Send
			for _, spans := range sessions {
				if send(ctx, spans) == nil {
					dropped--
				}
			}
			cancel()
			_ = del.Shutdown(b.ctx)
		}
	}
	b.spool.DropTooLarge(dropped)
}

// collected keeps the spans that end.
type collected struct {
	mu    sync.Mutex
	spans []sdktrace.ReadOnlySpan
}

func (c *collected) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c *collected) OnEnd(s sdktrace.ReadOnlySpan) {
	c.mu.Lock()
	c.spans = append(c.spans, s)
	c.mu.Unlock()
}
func (c *collected) Shutdown(context.Context) error   { return nil }
func (c *collected) ForceFlush(context.Context) error { return nil }

func (c *collected) take() []sdktrace.ReadOnlySpan {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.spans
	c.spans = nil
	return out
}

// SpoolDir is where the hooks' turns are kept for the delivery: the
// spool every mode shares, or, with it off, one of the hooks' own (a
// turn's spans must wait somewhere between the hook processes and the
// collector).
func SpoolDir(s settings.Settings, stateDir string) string {
	return cmp.Or(s.Spool, filepath.Join(stateDir, "spool"))
}
