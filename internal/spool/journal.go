package spool

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/atomicfile"
	"github.com/cursor-otel/cursor-otel/internal/filelock"
)

// A long-lived process (an editor's ACP session) exports its traces in
// batches, seconds apart: one export a trace took the cores its
// messages cross on. So that a process killed between two exports loses
// nothing, it appends each trace to a journal as it ends (one write),
// and removes the journal's segments once what they hold was exported
// or kept. While it lives, it holds a lock beside them; a delivery
// (any later run's, or flush) that can take the lock finds the writer
// dead, and makes its segments parts to deliver, as if it had kept them.
//
// Names: journal-STAMP-PID.lock, the writer's lock, and
// journal-STAMP-PID-SEQ-DEST.journal, its segments, SEQ counting up.
// A segment is journalMagic, then records: the payload's length and
// CRC-32C (4 bytes each, big-endian), the time the trace ended (Unix
// nanoseconds, 8), its trace ID (16), its spans (4), and the payload,
// OTLP TracesData in protobuf as a part holds it. A record cut short by
// a crash fails its length or checksum and ends the segment.
const (
	journalPrefix = "journal-"
	journalSuffix = ".journal"
	journalLock   = ".lock"
	recordHeader  = 4 + 4 + 8 + 16 + 4
)

var journalMagic = []byte("cursor-otel journal 1\n")

// Journal is a process's journal.
type Journal struct {
	dir    *Dir
	dest   string // the destination's digest
	writer string // journal-STAMP-PID
	unlock func()
	now    func() time.Time

	mu   sync.Mutex
	f    *os.File // the segment appended to; nil until the next append
	name string   // its name
	seq  int
	buf  []byte
	cut  []string // segments cut, not yet removed
}

// Segment names the segments a Cut closed, for Remove.
type Segment []string

// OpenJournal starts a journal for traces going to to.
func (d *Dir) OpenJournal(to Destination) (*Journal, error) {
	dest, err := d.ID(to)
	if err != nil {
		return nil, err
	}
	_ = os.Chmod(d.Path, 0o700)
	writer := fmt.Sprintf("%s%020d-%d", journalPrefix, d.now().UnixNano(), os.Getpid())
	unlock, err := filelock.Lock(filepath.Join(d.Path, writer+journalLock), false)
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	return &Journal{dir: d, dest: dest, writer: writer, unlock: unlock, now: d.now}, nil
}

// Append writes one trace's record: spans spans, payload its TracesData.
func (j *Journal) Append(id trace.TraceID, spans int, payload []byte) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	b := j.buf[:0]
	if j.f == nil {
		j.seq++
		j.name = fmt.Sprintf("%s-%06d-%s%s", j.writer, j.seq, j.dest, journalSuffix)
		f, err := os.OpenFile(filepath.Join(j.dir.Path, j.name), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("spool: %w", err)
		}
		j.f = f
		b = append(b, journalMagic...)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(payload)))
	b = binary.BigEndian.AppendUint32(b, crc32.Checksum(payload, crcTable()))
	b = binary.BigEndian.AppendUint64(b, uint64(j.now().UnixNano()))
	b = append(b, id[:]...)
	b = binary.BigEndian.AppendUint32(b, uint32(spans))
	b = append(b, payload...)
	j.buf = b[:0]
	if _, err := j.f.Write(b); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// Cut ends the segment appended to: what comes next goes to another. It
// returns every segment cut and not yet removed, for the caller to
// Remove once what they hold was exported or kept.
func (j *Journal) Cut() Segment {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil {
		_ = j.f.Close()
		j.cut = append(j.cut, j.name)
		j.f, j.name = nil, ""
	}
	return Segment(append([]string(nil), j.cut...))
}

// Remove removes segments: what they hold went.
func (j *Journal) Remove(s Segment) {
	j.mu.Lock()
	defer j.mu.Unlock()
	gone := map[string]bool{}
	for _, name := range s {
		_ = os.Remove(filepath.Join(j.dir.Path, name))
		gone[name] = true
	}
	kept := j.cut[:0]
	for _, name := range j.cut {
		if !gone[name] {
			kept = append(kept, name)
		}
	}
	j.cut = kept
}

// Close removes every segment, and the lock: the caller exported or
// kept all that was appended.
func (j *Journal) Close() {
	j.Remove(j.Cut())
	j.unlock()
	_ = os.Remove(filepath.Join(j.dir.Path, j.writer+journalLock))
}

// adoptJournals makes the segments of writers that died parts of the
// spool, and removes them: a delivery then sends them as any kept
// session. It says what it did. (A delivery runs it holding the
// deliverers' lock: no two adopt the same writer's.)
func (d *Dir) adoptJournals() (a adopted) {
	entries, err := os.ReadDir(d.Path)
	if err != nil {
		return a
	}
	a.parts = map[string]bool{}
	for _, e := range entries {
		writer, ok := strings.CutSuffix(e.Name(), journalLock)
		if !ok || !strings.HasPrefix(writer, journalPrefix) {
			continue
		}
		unlock, err := filelock.Lock(filepath.Join(d.Path, e.Name()), false)
		if err != nil {
			continue // alive
		}
		for _, s := range entries {
			if seg, ok := parseSegment(s.Name()); ok && seg.writer == writer {
				d.adopt(s.Name(), &a)
			}
		}
		unlock()
		_ = os.Remove(filepath.Join(d.Path, e.Name()))
	}
	return a
}

// adopted is what adoptJournals did.
type adopted struct {
	written int64           // bytes of parts written
	parts   map[string]bool // their names
	damaged int             // segments whose last record was cut short
}

// adopt makes one segment's records parts and removes it.
func (d *Dir) adopt(name string, a *adopted) {
	path := filepath.Join(d.Path, name)
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	seg, ok := parseSegment(name)
	if !ok {
		return
	}
	pid, dest := seg.pid, seg.dest
	records, err := readJournal(b)
	for i, r := range records {
		part := fmt.Sprintf("%020d-%s-%s-%03d-%s%s", r.at, r.trace, pid, i%1000, dest, partSuffix)
		out := make([]byte, 0, len(magic)+4+len(r.payload))
		out = append(out, magic...)
		out = binary.BigEndian.AppendUint32(out, r.sum)
		out = append(out, r.payload...)
		if err := atomicfile.WriteOwn(filepath.Join(d.Path, part), out); err != nil {
			return // the segment stays, for another try
		}
		a.written += int64(len(out))
		a.parts[part] = true
	}
	if err != nil {
		a.damaged++ // a record cut short: the writer died writing it
	}
	_ = os.Remove(path)
}

// record is one trace of a segment.
type record struct {
	at      int64
	trace   trace.TraceID
	sum     uint32
	payload []byte
}

var errCutShort = errors.New("journal record cut short or damaged")

// readJournal reads a segment's records, up to the first that is cut
// short or damaged (then it says so).
func readJournal(b []byte) ([]record, error) {
	if len(b) < len(journalMagic) || string(b[:len(journalMagic)]) != string(journalMagic) {
		return nil, errCutShort
	}
	b = b[len(journalMagic):]
	var out []record
	for len(b) > 0 {
		if len(b) < recordHeader {
			return out, errCutShort
		}
		n := int(binary.BigEndian.Uint32(b))
		r := record{sum: binary.BigEndian.Uint32(b[4:]), at: int64(binary.BigEndian.Uint64(b[8:]))}
		copy(r.trace[:], b[16:32])
		b = b[recordHeader:]
		if n > len(b) {
			return out, errCutShort
		}
		r.payload = b[:n]
		if crc32.Checksum(r.payload, crcTable()) != r.sum {
			return out, errCutShort
		}
		out = append(out, r)
		b = b[n:]
	}
	return out, nil
}

// orphaned says whether a writer that died left segments for one of
// dests, or for any when dests is nil (a delivery has work).
func (d *Dir) orphaned(names []string, dests map[string]bool) bool {
	writers := map[string]bool{}
	for _, n := range names {
		if seg, ok := parseSegment(n); ok && (dests == nil || dests[seg.dest]) {
			writers[seg.writer] = true
		}
	}
	for w := range writers {
		unlock, err := filelock.Lock(filepath.Join(d.Path, w+journalLock), false)
		if err == nil {
			unlock()
			return true
		}
	}
	return false
}

// journalDests are the destinations the journals' segments name.
func (d *Dir) journalDests() []string {
	entries, _ := os.ReadDir(d.Path)
	var out []string
	for _, e := range entries {
		if seg, ok := parseSegment(e.Name()); ok {
			out = append(out, seg.dest)
		}
	}
	return out
}

// segment is what a segment's name says.
type segment struct{ writer, pid, dest string }

// parseSegment reads a segment's name, journal-STAMP-PID-SEQ-DEST.journal;
// ok is false for any other file.
func parseSegment(name string) (s segment, ok bool) {
	rest, ok := strings.CutPrefix(name, journalPrefix)
	if !ok {
		return s, false
	}
	if rest, ok = strings.CutSuffix(rest, journalSuffix); !ok {
		return s, false
	}
	fields := strings.Split(rest, "-")
	if len(fields) != 4 {
		return s, false
	}
	if _, err := strconv.Atoi(fields[1]); err != nil {
		return s, false
	}
	return segment{writer: journalPrefix + fields[0] + "-" + fields[1], pid: fields[1], dest: fields[3]}, true
}
