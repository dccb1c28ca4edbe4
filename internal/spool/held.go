package spool

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/filelock"
)

// Held is what the spool keeps for one destination (flush --list).
type Held struct {
	// ID is the destination's digest, as part names carry it; Short is
	// the first ShortID characters of it, which flush --list shows.
	ID string
	// Address is where the sessions go, as shown: "http://host:4317 (grpc)".
	Address string
	// Differs says what else differs from today's destination (see
	// Waiting); Today says it is today's.
	Differs []string
	Today   bool
	// Sessions kept, the bytes they weigh, when the oldest and newest
	// were kept.
	Sessions       int
	Bytes          int64
	Oldest, Newest time.Time
}

// ShortID is how many characters of a destination's digest name it on
// the command line (flush --discard): enough to tell apart the few
// destinations a spool holds.
const ShortID = 6

// Short is the destination's digest as flush --list shows it.
func (h Held) Short() string {
	if h.ID == unknownDest {
		return "-"
	}
	return h.ID[:min(len(h.ID), ShortID)]
}

// Held is what the spool keeps, by destination, the one kept longest
// first. today, when not nil, is today's destination, which the others
// are compared with. Another user's parts are not listed: they are its.
func (d *Dir) Held(today *Destination) ([]Held, error) {
	parts, err := d.list()
	if err != nil {
		return nil, err
	}
	var mine map[string]bool
	if today != nil {
		mine = d.ids(*today)
	}
	byDest := map[string]*Held{}
	sessions := map[string]map[string]bool{}
	var order []string
	for _, p := range parts {
		if p.foreign {
			continue
		}
		h := byDest[p.dest]
		if h == nil {
			h = &Held{ID: p.dest, Address: d.address(p.dest), Today: mine[p.dest]}
			if today != nil && !h.Today {
				h.Differs = d.differs(p.dest, *today)
			}
			byDest[p.dest], sessions[p.dest] = h, map[string]bool{}
			order = append(order, p.dest)
		}
		sessions[p.dest][p.trace] = true
		h.Bytes += p.size
		at := keptAt(p.name)
		if h.Oldest.IsZero() || at.Before(h.Oldest) {
			h.Oldest = at
		}
		if at.After(h.Newest) {
			h.Newest = at
		}
	}
	out := make([]Held, 0, len(order))
	for _, id := range order {
		h := byDest[id]
		h.Sessions = len(sessions[id])
		out = append(out, *h)
	}
	slices.SortStableFunc(out, func(a, b Held) int { return a.Oldest.Compare(b.Oldest) })
	return out, nil
}

// keptAt is when a part was kept, as its name says.
func keptAt(name string) time.Time {
	stamp, _, _ := strings.Cut(name, "-")
	ns, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// ErrNoDestination says no destination the spool keeps sessions for is
// the one named; ErrAmbiguous that more than one is.
var (
	ErrNoDestination = errors.New("no sessions kept for it")
	ErrAmbiguous     = errors.New("more than one destination has that address")
)

// Find is the destination held names: its short ID (or more of its
// digest), its address as shown ("http://host:4317 (grpc)"), or its
// address alone when no other destination shares it.
func Find(held []Held, name string) (Held, error) {
	name = strings.TrimSpace(name)
	var found []Held
	for _, h := range held {
		if name == h.Short() || name == h.Address || h.ID != unknownDest && len(name) >= ShortID && strings.HasPrefix(h.ID, strings.ToLower(name)) {
			return h, nil
		}
		if address, _, _ := strings.Cut(h.Address, " ("); strings.EqualFold(strings.TrimSuffix(name, "/"), strings.TrimSuffix(address, "/")) {
			found = append(found, h)
		}
	}
	switch len(found) {
	case 0:
		return Held{}, ErrNoDestination
	case 1:
		return found[0], nil
	}
	return Held{}, ErrAmbiguous
}

// Discard drops every session kept for the destination id, and says how
// many (and their spans are not read: they go unsent). It waits for no
// delivery: one at work makes it return ErrBusy.
func (d *Dir) Discard(id string) (sessions int, err error) {
	unlock, err := filelock.LockOwn(filepath.Join(d.Path, lockFile), false)
	if errors.Is(err, filelock.ErrLocked) {
		return 0, ErrBusy
	}
	if err != nil {
		return 0, fmt.Errorf("spool: %w", err)
	}
	defer unlock()
	parts, err := d.list()
	if err != nil {
		return 0, err
	}
	gone := map[string]bool{}
	for _, p := range parts {
		if p.foreign || p.dest != id {
			continue
		}
		if err := os.Remove(filepath.Join(d.Path, p.name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return len(gone), fmt.Errorf("spool: %w", err)
		}
		gone[p.trace] = true
	}
	d.forget()
	return len(gone), nil
}

// Total is what held weighs and holds together.
func Total(held []Held) (sessions int, bytes int64) {
	for _, h := range held {
		sessions += h.Sessions
		bytes += h.Bytes
	}
	return sessions, bytes
}
