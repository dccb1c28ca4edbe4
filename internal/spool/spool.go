// Package spool keeps on disk the spans a collector did not take, and
// hands them back, oldest first, to be delivered later: exactly once, by
// one deliverer at a time. It knows spans, not cursor-agent: what it keeps
// is what would have been exported (already redacted), in OTLP's own form.
package spool

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/cursor-otel/cursor-otel/internal/atomicfile"
	"github.com/cursor-otel/cursor-otel/internal/filelock"
)

// DefaultMax is the most the spool holds, in bytes.
const DefaultMax = 64 << 20

// A session is kept as parts of at most so many spans and bytes: each part
// is one export, accepted or not as a whole.
const (
	partSpans = 512
	partBytes = 3 << 20
)

// File names: parts end in .otlp, named so that sorting them is oldest
// first, and name their session's trace and their destination's digest
// (STAMP-TRACE-PID-PART-DEST.otlp); the deliverers' lock and the count of
// sessions dropped to keep the bound sit beside them.
const (
	partSuffix  = ".otlp"
	lockFile    = "deliver.lock"
	droppedFile = "dropped"
)

// ErrBusy says another process is delivering now.
var ErrBusy = errors.New("another cursor-otel is delivering the kept sessions")

// Dir is a spool directory.
type Dir struct {
	Path string
	Max  int64 // bytes; DefaultMax when zero
	now  func() time.Time

	// What this process knows of the spool's size, so that Keep lists the
	// directory only when the bound may be near: a replay with no
	// collector keeps thousands of sessions, one batch at a time, and a
	// listing each time made it quadratic (half its time at 4,520).
	mu        sync.Mutex
	listed    bool  // the directory has been listed once
	estimate  int64 // bytes kept, as last listed plus what this process wrote since
	sinceList int64 // bytes this process wrote since the last listing
}

// Open is the spool in path, holding at most max bytes (DefaultMax when
// max <= 0).
func Open(path string, max int64) *Dir {
	if max <= 0 {
		max = DefaultMax
	}
	return &Dir{Path: path, Max: max, now: time.Now}
}

// Kept says what Keep did.
type Kept struct {
	Sessions, Spans int
	// Dropped is how many older sessions were dropped to keep the bound.
	Dropped int
	// TooLarge sessions (and their spans) were not kept: each alone
	// weighs more than the bound.
	TooLarge, TooLargeSpans int
	// Traces says, by trace ID, what became of each session Keep was
	// given: kept, or dropped as too large.
	Traces map[trace.TraceID]Fate
	// parts are the parts written, for HandOver.
	parts []HandedPart
}

// Keep writes spans that were going to to the spool, a session (trace)
// at a time, each part whole or not at all; files are the user's alone
// (0600 in a 0700 directory): with content capture they hold prompts.
func (d *Dir) Keep(to Destination, spans []sdktrace.ReadOnlySpan) (Kept, error) {
	return d.keep(to, spans, true)
}

// keep is Keep; logTooLarge says a session too large is dropped (and
// logged so), not sent by the caller instead.
func (d *Dir) keep(to Destination, spans []sdktrace.ReadOnlySpan, logTooLarge bool) (Kept, error) {
	var k Kept
	if len(spans) == 0 {
		return k, nil
	}
	if err := MkdirAll(d.Path); err != nil {
		return k, fmt.Errorf("spool: %w", err)
	}
	_ = os.Chmod(d.Path, 0o700) // made earlier with a wider mode, or by the user
	dest, err := d.ID(to)
	if err != nil {
		return k, err
	}
	byTrace, order := sessions(spans)
	stamp := d.now().UnixNano()
	var written int64
	k.Traces = map[trace.TraceID]Fate{}
	for _, id := range order {
		spans := byTrace[id]
		pb := convert(spans) // once: the parts are cut by its size, and written from it
		encoded, err := d.encodeParts(spans, pb)
		if err != nil {
			return k, err
		}
		if encoded.size > d.Max {
			// Kept, it would be the first the bound drops: a session
			// is never said to be kept that was not.
			k.TooLarge++
			k.TooLargeSpans += len(spans)
			k.Traces[id] = FateTooLarge
			continue
		}
		for i, b := range encoded.parts {
			name := fmt.Sprintf("%020d-%s-%d-%03d-%s%s", stamp, id, os.Getpid(), i, dest, partSuffix)
			if err := d.write(name, b); err != nil {
				return k, err
			}
			k.parts = append(k.parts, HandedPart{name: name, Trace: id, Spans: encoded.spans[i]})
		}
		written += encoded.size
		k.Spans += len(spans)
		k.Sessions++
		k.Traces[id] = FateKept
	}
	if k.TooLarge > 0 && logTooLarge {
		d.addDropped(dropTooLarge, k.TooLarge)
	}
	k.Dropped = d.bound(written, nil)
	return k, nil
}

// sessions are spans by their trace, and the traces in the order they
// first come.
func sessions(spans []sdktrace.ReadOnlySpan) (map[trace.TraceID][]sdktrace.ReadOnlySpan, []trace.TraceID) {
	byTrace := map[trace.TraceID][]sdktrace.ReadOnlySpan{}
	var order []trace.TraceID
	for _, s := range spans {
		id := s.SpanContext().TraceID()
		if _, ok := byTrace[id]; !ok {
			order = append(order, id)
		}
		byTrace[id] = append(byTrace[id], s)
	}
	return byTrace, order
}

// bound keeps the spool within Max after this process wrote written
// bytes: it lists the directory the first time, when its estimate is past
// Max, and after every sixteenth of Max written (other processes write
// too), and otherwise only counts.
func (d *Dir) bound(written int64, protect map[string]bool) (dropped int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.estimate += written
	d.sinceList += written
	if d.listed && d.estimate <= d.Max && d.sinceList < d.Max/16 {
		return 0
	}
	dropped, d.estimate = d.evict(protect)
	d.listed, d.sinceList = true, 0
	return dropped
}

// cut is where a part lies in its session's spans: [from, to).
type cut struct{ from, to int }

// parts cuts one session's spans, in their OTLP form, into exports of at
// most partSpans spans and about partBytes.
func parts(spans []*tracepb.Span) []cut {
	var out []cut
	start, size := 0, 0
	for i, s := range spans {
		n := proto.Size(s)
		if i > start && (i-start >= partSpans || size+n > partBytes) {
			out = append(out, cut{start, i})
			start, size = i, 0
		}
		size += n
	}
	return append(out, cut{start, len(spans)})
}

// encoded is a session's parts as they will be written.
type encoded struct {
	parts [][]byte
	spans []int // in each part
	size  int64
}

// encodeParts is a session's parts, encoded, and what they weigh.
func (d *Dir) encodeParts(spans []sdktrace.ReadOnlySpan, pb []*tracepb.Span) (encoded, error) {
	var e encoded
	for _, r := range parts(pb) {
		b, err := encode(toOTLP(spans[r.from:r.to], pb[r.from:r.to]))
		if err != nil {
			return e, err
		}
		e.parts = append(e.parts, b)
		e.spans = append(e.spans, r.to-r.from)
		e.size += int64(len(b))
	}
	return e, nil
}

// write writes one part whole or not at all (no fsync: a part cut short
// by a crash fails its checksum and is dropped, saying so; one sync a
// part would slow a replay to the disk's pace). A root run's part stays
// root's: the user's deliveries leave it for root.
func (d *Dir) write(name string, b []byte) error {
	if err := atomicfile.WriteOwn(filepath.Join(d.Path, name), b); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// part is a part file as listed.
type part struct {
	name    string
	trace   string // the session's trace ID, from the name
	dest    string // its destination's digest, from the name; unknownDest in older names
	size    int64
	foreign bool // another user's (see owner.go): left alone
}

// parsePart reads a part's name; ok is false for a file that is no part.
func parsePart(name string, info fs.FileInfo) (p part, ok bool) {
	if !isPartName(name) {
		return p, false
	}
	p = part{name: name, size: info.Size()}
	_, p.foreign = ownerOther(info)
	fields := strings.Split(strings.TrimSuffix(name, partSuffix), "-")
	if len(fields) >= 2 {
		p.trace = fields[1]
	}
	p.dest = destOf(name)
	return p, true
}

// isPartName says a file's name is a part's.
func isPartName(name string) bool {
	return strings.HasSuffix(name, partSuffix) && !strings.HasPrefix(name, ".")
}

// list is the parts, oldest first.
func (d *Dir) list() ([]part, error) {
	entries, err := os.ReadDir(d.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	var out []part
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), partSuffix) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // taken by a deliverer meanwhile
		}
		if p, ok := parsePart(e.Name(), info); ok {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b part) int { return cmp.Compare(a.name, b.name) })
	return out, nil
}

// HasKept says whether anything is kept for to: a look at the directory,
// cheap enough for every run's start. Sessions kept for another
// destination are not pending here: no run delivers them on its own.
func (d *Dir) HasKept(to Destination) bool {
	var ids map[string]bool // the destination's, once a part is seen
	var journals []string   // segments of journals (a writer dead or alive)
	if d.anyPart(func(name string) bool {
		if strings.HasSuffix(name, journalSuffix) {
			journals = append(journals, name)
			return false
		}
		if !strings.HasSuffix(name, partSuffix) {
			return false
		}
		if ids == nil {
			if ids = d.ids(to); ids == nil {
				return false // no key: nothing was kept with a destination
			}
		}
		return ids[destOf(name)] && d.own(name)
	}) {
		return true
	}
	return len(journals) > 0 && d.orphaned(journals, d.ids(to))
}

// destOf is the destination's digest a part's name carries; unknownDest
// in names given before destinations were written down.
func destOf(name string) string {
	fields := strings.Split(strings.TrimSuffix(name, partSuffix), "-")
	if len(fields) >= 5 {
		return fields[4]
	}
	return unknownDest
}

// Holds says whether anything is kept, for whatever destination: parts,
// or the journal of a process that died.
func (d *Dir) Holds() bool {
	var journals []string
	if d.anyPart(func(name string) bool {
		if strings.HasSuffix(name, journalSuffix) {
			journals = append(journals, name)
		}
		return strings.HasSuffix(name, partSuffix)
	}) {
		return true
	}
	return len(journals) > 0 && d.orphaned(journals, nil)
}

// anyPart says whether the name of a file in the directory (but those
// being written, whose names start with a dot) matches.
func (d *Dir) anyPart(match func(name string) bool) bool {
	f, err := os.Open(d.Path)
	if err != nil {
		return false
	}
	defer f.Close()
	for {
		names, err := f.Readdirnames(64)
		for _, n := range names {
			if !strings.HasPrefix(n, ".") && match(n) {
				return true
			}
		}
		if err != nil {
			return false
		}
	}
}

// evict drops the oldest sessions, whole, until the spool is within its
// bound, and counts them for the next delivery to say. A writer runs it
// whether or not a deliverer is at work: waiting for one would hold up
// the run, and a part dropped while being sent is at worst both sent and
// counted dropped, never sent twice. It returns the bytes left.
func (d *Dir) evict(protect map[string]bool) (dropped int, total int64) {
	parts, err := d.list()
	if err != nil {
		return 0, 0
	}
	parts = slices.DeleteFunc(parts, func(p part) bool { return p.foreign }) // another user's are not this one's to drop
	for _, p := range parts {
		total += p.size
	}
	for total > d.Max {
		i := slices.IndexFunc(parts, func(p part) bool { return !protect[p.name] })
		if i < 0 {
			break // what is left was just published: it waits for its delivery
		}
		oldest := parts[i].trace
		dropped++
		parts = slices.DeleteFunc(parts, func(p part) bool {
			if p.trace != oldest || protect[p.name] {
				return false
			}
			if os.Remove(filepath.Join(d.Path, p.name)) == nil {
				total -= p.size
			}
			return true
		})
	}
	if dropped > 0 {
		d.addDropped(dropBound, dropped)
	}
	return dropped, total
}

// staleAfter is how old a part being written must be to be taken for
// one a crash left half written.
const staleAfter = time.Hour

// removeStale removes parts a writer that died mid-write left under their
// temporary names.
func (d *Dir) removeStale() {
	entries, _ := os.ReadDir(d.Path)
	for _, e := range entries {
		// .part-: written by earlier versions.
		if atomicfile.Stale(e, d.now(), staleAfter) || strings.HasPrefix(e.Name(), ".part-") && e.Type().IsRegular() && old(e, d.now()) {
			_ = os.Remove(filepath.Join(d.Path, e.Name()))
		}
	}
}

// old says an entry is older than staleAfter.
func old(e os.DirEntry, now time.Time) bool {
	info, err := e.Info()
	return err == nil && now.Sub(info.ModTime()) > staleAfter
}

// Delivery says what Deliver did.
type Delivery struct {
	Sessions, Spans int // delivered
	// Left is how many sessions are still kept: the collector did not
	// take them (Err says why).
	Left int
	// Rejected sessions the collector refused as malformed, dropped: a
	// retry would be refused again. RejectedErr is the first refusal.
	Rejected    int
	RejectedErr error
	// Damaged part files that could not be read back, dropped.
	Damaged int
	// Dropped sessions since the user was last told (by a foreground
	// delivery; a background one leaves them in the log).
	Dropped Drops
	// Waiting sessions, kept for other destinations, by address.
	Waiting []Waiting
	// Foreign sessions another user kept here (a root run's), left for it.
	Foreign int
	Err     error // why delivery stopped short; nil when all went
}

// Export sends spans to a destination; Permanent says an error is the
// collector's refusal of the data itself (not worth a retry).
type Export struct {
	To        Destination
	Send      func(context.Context, []sdktrace.ReadOnlySpan) error
	Permanent func(error) bool
	// Background: no one reads what this delivery says, so the sessions
	// dropped stay in the log for the next run or flush to tell.
	Background bool
	// Prompt is how soon an answer must come for the collector to count
	// as prompt (a run may then send to it itself); zero notes nothing.
	Prompt time.Duration
	// Reason says an export error in words, as the run that handed the
	// spans over will say it; nil says err.Error().
	Reason func(error) string
}

// Deliver sends what is kept for exp's destination, oldest first, a part
// at a time: a part is removed once the collector took it, or refused it
// as malformed. It stops at the first failure that a later try may get
// past, leaving the rest. Sessions kept for other destinations wait,
// counted in Waiting, unless redirect sends them to exp's too. One
// deliverer at a time: another at work makes this one return ErrBusy at
// once; a deliverer killed mid-send leaves its part to be sent again,
// whole.
func (d *Dir) Deliver(ctx context.Context, exp Export, redirect bool) (Delivery, error) {
	var r Delivery
	if err := MkdirAll(d.Path); err != nil {
		return r, fmt.Errorf("spool: %w", err)
	}
	unlock, err := filelock.LockOwn(filepath.Join(d.Path, lockFile), false)
	if errors.Is(err, filelock.ErrLocked) {
		return r, ErrBusy
	}
	if err != nil {
		return r, fmt.Errorf("spool: %w", err)
	}
	defer unlock()
	d.removeStale()
	// What long-lived processes that died had not exported yet.
	a := d.adoptJournals()
	r.Damaged += a.damaged
	if a.written > 0 {
		d.bound(a.written, a.parts)
	}
	parts, err := d.list()
	if err != nil {
		return r, err
	}
	// No key yet: no part was kept for exp's destination, whatever else was.
	to := d.ids(exp.To)
	waiting := map[string]map[string]bool{} // destination: its sessions
	delivered, rejected, left := map[string]bool{}, map[string]bool{}, map[string]bool{}
	foreign := map[string]bool{}
	for _, p := range parts {
		if p.foreign {
			foreign[p.trace] = true // left for its owner, unread
			continue
		}
		if !to[p.dest] && !redirect {
			if waiting[p.dest] == nil {
				waiting[p.dest] = map[string]bool{}
			}
			waiting[p.dest][p.trace] = true
			continue
		}
		if r.Err != nil || ctx.Err() != nil {
			left[p.trace] = true
			continue
		}
		path := filepath.Join(d.Path, p.name)
		spans, err := read(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // dropped to keep the bound meanwhile
		}
		if err != nil {
			r.Damaged++
			_ = os.Remove(path)
			continue
		}
		began := time.Now()
		err = exp.Send(ctx, spans)
		if to[p.dest] {
			permanent := err != nil && exp.Permanent != nil && exp.Permanent(err)
			if today, _ := d.id(exp.To, false); !permanent && today != "" {
				d.noteAnswer(today, time.Since(began), exp.Prompt, err, exp.Reason)
			}
		}
		switch {
		case err == nil:
			delivered[p.trace] = true
			r.Spans += len(spans)
			_ = os.Remove(path)
		case exp.Permanent != nil && exp.Permanent(err):
			rejected[p.trace] = true
			if r.RejectedErr == nil {
				r.RejectedErr = err
			}
			_ = os.Remove(path)
		default:
			r.Err = err
			left[p.trace] = true
		}
	}
	if r.Err == nil && ctx.Err() != nil && len(left) > 0 {
		r.Err = ctx.Err()
	}
	for id := range rejected {
		delete(delivered, id)
	}
	for id := range left {
		delete(delivered, id) // in part: it is not delivered until whole
	}
	r.Sessions, r.Rejected, r.Left, r.Foreign = len(delivered), len(rejected), len(left), len(foreign)
	for id, sessions := range waiting {
		w := d.Describe(id, exp.To)
		w.Sessions = len(sessions)
		r.Waiting = append(r.Waiting, w)
	}
	slices.SortFunc(r.Waiting, func(a, b Waiting) int { return cmp.Compare(a.Address, b.Address) })
	if exp.Background {
		// No one would be told what it dropped now: the bound is kept
		// by the runs that keep sessions, and by flush, which say so.
		r.Dropped = d.Dropped()
	} else {
		d.evict(nil) // what is left after the delivery, not what it could send
		r.Dropped = d.takeDropped()
	}
	d.forget()
	return r, nil
}

// forget removes the addresses written down for destinations that no
// kept session goes to any more, and rewrites what earlier cursor-otel
// versions wrote down without its credentials. (One written by a run keeping sessions
// right now is a minute old at most, and stays.)
func (d *Dir) forget() {
	parts, err := d.list()
	if err != nil {
		return
	}
	used := map[string]bool{}
	for _, p := range parts {
		used[p.dest] = true
	}
	for _, dest := range d.journalDests() { // a live session's, kept if it dies
		used[dest] = true
	}
	entries, _ := os.ReadDir(d.Path)
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), destSuffix)
		if !ok || strings.HasPrefix(id, ".") {
			continue
		}
		d.scrub(id) // written by an earlier cursor-otel, credentials and all
		if used[id] {
			continue
		}
		if info, err := e.Info(); err == nil && d.now().Sub(info.ModTime()) > time.Minute {
			_ = os.Remove(filepath.Join(d.Path, e.Name()))
		}
	}
}

func read(path string) ([]sdktrace.ReadOnlySpan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	td, err := decode(b)
	if err != nil {
		return nil, err
	}
	return fromOTLP(td)
}

// Stats is what the spool holds.
type Stats struct {
	Sessions, Spans int
	Bytes           int64
	Damaged         int // files that cannot be read back
	Foreign         int // another user's parts, not read
}

// Stat reads every kept part: how many sessions and spans wait.
func (d *Dir) Stat() (Stats, error) {
	var st Stats
	parts, err := d.list()
	if err != nil {
		return st, err
	}
	sessions := map[string]bool{}
	for _, p := range parts {
		if p.foreign {
			st.Foreign++
			continue
		}
		spans, err := read(filepath.Join(d.Path, p.name))
		if err != nil {
			st.Damaged++
			continue
		}
		sessions[p.trace] = true
		st.Spans += len(spans)
		st.Bytes += p.size
	}
	st.Sessions = len(sessions)
	return st, nil
}
