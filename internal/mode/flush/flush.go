// Package flush owns the delivery of what is kept for the collector:
// the flush command, which delivers now (and says what went), and the
// background delivery a run starts for itself, a detached process with
// its lock, which builds the hooks' turns into the spool, takes what
// runs handed over, and delivers (saying nothing: what it could not do,
// and what it dropped, the next run or flush says). The modes get from
// it the funcs that start it (DeliverKept, Deliverer, StartFor).
package flush

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/harness"
	"github.com/cursor-otel/cursor-otel/internal/oneline"
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// Config is one flush.
type Config struct {
	Settings settings.Settings
	Getenv   func(string) string
	Environ  []string
	Stdout   io.Writer
	Stderr   io.Writer
	// Background: started by another run, it prints nothing, and leaves
	// the sessions it dropped for the next flush to say. (Its context
	// bounds it, by BackgroundTimeout.)
	Background bool
	// Redirect also sends the sessions kept for other destinations to
	// today's: only when the user says so (flush --redirect).
	Redirect bool
	// HookSetAside are the hooks' files found damaged and set aside,
	// which flush names.
	HookSetAside []string
	// Wait bounds how long a flush the user runs waits for another
	// delivery at work on the spool (BackgroundLife when zero: by then a
	// background one has ended).
	Wait time.Duration
}

// oldStatusFile is where background deliveries of earlier versions
// wrote what they did, read by no one: a flush removes it.
const oldStatusFile = "last-delivery.txt"

// Run delivers and returns the exit status: 0 when nothing is left
// kept (or another process is delivering), 1 when some could not go.
func Run(ctx context.Context, c Config) int {
	s := c.Settings
	if s.Spool == "" {
		return c.done(0, "the spool is off (CURSOR_OTEL_SPOOL=off): nothing is kept")
	}
	dir := spool.Open(s.Spool, s.SpoolMax)
	if c.Background {
		if to, ok := tracer.Destination(c.Getenv); !ok || !dir.HasKept(to) {
			return 0
		}
	} else if !dir.Holds() {
		msg := c.sayHooks("nothing kept in " + s.Spool)
		if said := SayDropped(dir.TakeDropped()); said != "" {
			msg += "; " + said
		}
		if said := SayForeign(dir.Foreign()); said != "" {
			msg += "; " + said
		}
		return c.done(0, msg)
	}
	d, redactor, err := harness.NewDelivery(ctx, harness.Setup{Settings: s, Environ: c.Environ, Getenv: c.Getenv})
	if err != nil {
		return c.done(1, redactor.Redact(fmt.Sprintf("cannot deliver the sessions kept in %s: %v", s.Spool, err)))
	}
	exp := d.Export()
	exp.Background = c.Background
	// An answer within half the flush timeout leaves a run time to send
	// itself; slower, runs hand their spans over to a delivery like this.
	exp.Prompt = cmp.Or(s.FlushTimeout, tracer.DefaultFlushTimeout) / 2
	exp.Reason = func(err error) string { return redactor.Redact(tracer.Reason(err)) }
	r, err := dir.Deliver(ctx, exp, c.Redirect)
	if errors.Is(err, spool.ErrBusy) && !c.Background {
		// Asked to deliver now (or redirect): wait for the other
		// delivery, whose settings may not be these, then do it.
		await(ctx, c.wait(), c.sayWaiting, func() bool {
			r, err = dir.Deliver(ctx, exp, c.Redirect)
			return !errors.Is(err, spool.ErrBusy)
		})
	}
	shutdown, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = d.Shutdown(shutdown)
	switch {
	case errors.Is(err, spool.ErrBusy) && c.Background:
		return c.done(0, "another cursor-otel is delivering the sessions kept in "+s.Spool)
	case errors.Is(err, spool.ErrBusy):
		return c.done(1, fmt.Sprintf("another cursor-otel has been delivering the sessions kept in %s for over %s; nothing sent%s: run cursor-otel flush again once it ends",
			s.Spool, c.wait(), map[bool]string{true: " or redirected", false: ""}[c.Redirect]))
	case err != nil:
		return c.done(1, redactor.Redact(err.Error()))
	}
	status := 0
	if r.Err != nil {
		status = 1
	}
	said := c.sayHooks(Say(r, d.Endpoint, d.Shown, s.Spool))
	if !c.Background {
		if foreign := SayForeign(dir.Foreign()); foreign != "" {
			said = strings.Join(slices.DeleteFunc([]string{said, foreign}, func(s string) bool { return s == "" }), "; ")
		}
	}
	return c.done(status, redactor.Redact(said))
}

// sayHooks adds to what a delivery said (said) the hooks' files found
// damaged and set aside: each cost at most the turn it held.
func (c Config) sayHooks(said string) string {
	if len(c.HookSetAside) == 0 {
		return said
	}
	return said + fmt.Sprintf("; %s of the hooks found damaged and set aside (each cost at most the turn it held): %s",
		oneline.Count(len(c.HookSetAside), "file"), strings.Join(c.HookSetAside, ", "))
}

// Say is what a delivery did, in one line: endpoint is where it went as
// the user wrote it, shown as the spool tells destinations apart.
func Say(r spool.Delivery, endpoint, shown, dir string) string {
	var parts []string
	if r.Sessions > 0 || r.Err == nil && r.Rejected == 0 && r.Damaged == 0 && len(r.Waiting) == 0 && r.Foreign == 0 {
		parts = append(parts, fmt.Sprintf("delivered %s (%s) to %s", oneline.Count(r.Sessions, "session"), oneline.Count(r.Spans, "span"), endpoint))
	}
	if r.Err != nil {
		parts = append(parts, fmt.Sprintf("collector at %s: %s; %s still kept in %s", endpoint, tracer.Reason(r.Err), oneline.Count(r.Left, "session"), dir))
	}
	if r.Rejected > 0 {
		parts = append(parts, fmt.Sprintf("%s refused by the collector as malformed (%s), dropped", oneline.Count(r.Rejected, "session"), tracer.Reason(r.RejectedErr)))
	}
	if r.Damaged > 0 {
		parts = append(parts, fmt.Sprintf("%s damaged (cut short or overwritten), dropped", oneline.Count(r.Damaged, "kept file")))
	}
	if said := SayDropped(r.Dropped); said != "" {
		parts = append(parts, said)
	}
	if said := sayAllWaiting(r.Waiting, shown); said != "" {
		parts = append(parts, said)
	}
	return strings.Join(parts, "; ")
}

// sayAllWaiting says what waits for other destinations than today's
// (shown), short: the one destination and what differs, or, for more,
// how many, pointing to flush --list; "" when nothing waits.
func sayAllWaiting(waiting []spool.Waiting, shown string) string {
	switch len(waiting) {
	case 0:
		return ""
	case 1:
		return SayWaiting(waiting[0].Sessions, "session", waiting[0], shown) + "; see cursor-otel flush --list"
	}
	n := 0
	for _, w := range waiting {
		n += w.Sessions
	}
	return fmt.Sprintf("%s wait for other collectors (%s): cursor-otel flush --list shows them, flush --redirect sends them to %s",
		oneline.Count(n, "session"), oneline.Count(len(waiting), "destination"), shown)
}

// SayWaiting says that n of what (sessions, spans) wait for the
// destination of w, what differs from today's (shown), and how to send
// them there.
func SayWaiting(n int, what string, w spool.Waiting, shown string) string {
	differs := ""
	if len(w.Differs) > 0 {
		differs = " with " + strings.Join(w.Differs, ", ")
	}
	verb, them := "wait", "them"
	if n == 1 {
		verb, them = "waits", "it"
	}
	return fmt.Sprintf("%s kept for %s%s %s for that collector (cursor-otel flush --redirect sends %s to %s instead)",
		oneline.Count(n, what), w.Address, differs, verb, them, shown)
}

func (c Config) wait() time.Duration {
	if c.Wait > 0 {
		return c.Wait
	}
	return BackgroundLife
}

// sayWaiting says, on stderr, that this flush waits for another delivery
// to end before it does its own.
func (c Config) sayWaiting() {
	if !c.Background && c.Stderr != nil {
		fmt.Fprintln(c.Stderr, oneline.Join(fmt.Sprintf("another cursor-otel is delivering the sessions kept in %s; waiting for it to end (at most %s)",
			c.Settings.Spool, c.wait())))
	}
}

// SayForeign names what another user (a root run, sudo -E) left in the
// spool: its sessions wait for it, its files stay; "" when nothing.
func SayForeign(f spool.Foreign) string {
	if !f.Any() {
		return ""
	}
	files := slices.Clone(f.Files)
	if f.Parts > 0 {
		files = append(files, oneline.Count(f.Parts, "kept part"))
	}
	msg := fmt.Sprintf("files of another user (uid %d) left as they are: %s", f.UID, strings.Join(files, ", "))
	if f.Sessions > 0 {
		msg = fmt.Sprintf("%s kept by another user (uid %d) wait for it (it can deliver them: sudo -E cursor-otel flush); its files here are left as they are: %s",
			oneline.Count(f.Sessions, "session"), f.UID, strings.Join(files, ", "))
	}
	return msg
}

// SayDropped is the sessions dropped since the user was last told, in
// words; "" when none were.
func SayDropped(d spool.Drops) string {
	var parts []string
	if d.Bound > 0 {
		parts = append(parts, fmt.Sprintf("%s dropped earlier, oldest first, to keep the spool within CURSOR_OTEL_SPOOL_MAX", oneline.Count(d.Bound, "session")))
	}
	if d.TooLarge > 0 {
		parts = append(parts, fmt.Sprintf("%s dropped earlier as larger than CURSOR_OTEL_SPOOL_MAX by itself, never kept", oneline.Count(d.TooLarge, "session")))
	}
	return strings.Join(parts, "; ")
}

// done says what happened: on stdout (or stderr, for a failure) in the
// foreground; nothing in the background.
func (c Config) done(status int, msg string) int {
	line := oneline.Join("cursor-otel: " + msg)
	if c.Background {
		return 0
	}
	if c.Settings.Spool != "" {
		_ = os.Remove(filepath.Join(c.Settings.Spool, oldStatusFile))
	}
	w := c.Stdout
	if status != 0 {
		w = c.Stderr
	}
	fmt.Fprintln(w, line)
	return status
}
