package flush

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/oneline"
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// List says what the spool keeps, by destination (flush --list): a line
// each, with the short ID flush --discard takes, the destination as the
// user set it (its address and protocol, and what else differs from
// today's: header names, never a value), how many sessions, how large,
// how old. It sends nothing and returns the exit status.
func List(c Config) int {
	if c.Settings.Spool == "" {
		return c.done(0, "the spool is off (CURSOR_OTEL_SPOOL=off): nothing is kept")
	}
	held, err := c.held()
	if err != nil {
		return c.done(1, err.Error())
	}
	if len(held) == 0 {
		return c.done(0, "nothing kept in "+c.Settings.Spool)
	}
	sessions, bytes := spool.Total(held)
	now := time.Now()
	var b strings.Builder
	fmt.Fprintf(&b, "cursor-otel: %s (%s) kept in %s, for %s:\n", oneline.Count(sessions, "session"), oneline.Size(bytes),
		c.Settings.Spool, oneline.Count(len(held), "destination"))
	for _, h := range held {
		fmt.Fprintf(&b, "  %-6s  %s: %s, %s, %s\n", h.Short(), shownHeld(h), oneline.Count(h.Sessions, "session"), oneline.Size(h.Bytes), ages(h, now))
	}
	b.WriteString("cursor-otel flush --discard ID drops one destination's sessions; flush --redirect sends them all to the collector set now\n")
	fmt.Fprint(c.Stdout, b.String())
	return 0
}

// Discard drops what the spool keeps for the destination dest names (as
// flush --list shows it: its ID, or its address) and says how many
// sessions went; it returns the exit status: 1 when dest names none.
func Discard(ctx context.Context, c Config, dest string) int {
	if c.Settings.Spool == "" {
		return c.done(1, "the spool is off (CURSOR_OTEL_SPOOL=off): nothing is kept to discard")
	}
	held, err := c.held()
	if err != nil {
		return c.done(1, err.Error())
	}
	h, err := spool.Find(held, dest)
	switch {
	case errors.Is(err, spool.ErrAmbiguous):
		return c.done(1, fmt.Sprintf("%q: %v; give its ID as cursor-otel flush --list shows it", dest, err))
	case err != nil:
		return c.done(1, fmt.Sprintf("%q: %v; cursor-otel flush --list shows what is kept, and for where", dest, err))
	}
	dir := spool.Open(c.Settings.Spool, c.Settings.SpoolMax)
	n, err := dir.Discard(h.ID)
	if errors.Is(err, spool.ErrBusy) {
		await(ctx, c.wait(), c.sayWaiting, func() bool {
			n, err = dir.Discard(h.ID)
			return !errors.Is(err, spool.ErrBusy)
		})
	}
	switch {
	case errors.Is(err, spool.ErrBusy):
		return c.done(1, fmt.Sprintf("another cursor-otel has been delivering the sessions kept in %s for over %s; nothing discarded: run it again once it ends",
			c.Settings.Spool, c.wait()))
	case err != nil:
		return c.done(1, err.Error())
	}
	return c.done(0, fmt.Sprintf("discarded %s kept for %s", oneline.Count(n, "session"), shownHeld(h)))
}

// held is what the spool keeps, compared with today's destination when
// the settings export over OTLP.
func (c Config) held() ([]spool.Held, error) {
	var today *spool.Destination
	if to, ok := tracer.Destination(c.Getenv); ok {
		today = &to
	}
	return spool.Open(c.Settings.Spool, c.Settings.SpoolMax).Held(today)
}

// shownHeld is a destination as the user set it: its address and
// protocol, and what else differs from today's, or that it is today's.
func shownHeld(h spool.Held) string {
	switch {
	case h.Today:
		return h.Address + ", the collector set now"
	case len(h.Differs) > 0:
		return h.Address + " with " + strings.Join(h.Differs, ", ")
	}
	return h.Address
}

// ages says when a destination's sessions were kept.
func ages(h spool.Held, now time.Time) string {
	oldest, newest := age(now.Sub(h.Oldest)), age(now.Sub(h.Newest))
	if h.Sessions == 1 || oldest == newest {
		return "kept " + oldest + " ago"
	}
	return fmt.Sprintf("oldest kept %s ago, newest %s ago", oldest, newest)
}

// age is a duration as a person reads an age: its largest unit.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d/time.Second)))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}
