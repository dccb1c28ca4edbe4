// Package conversation keeps what a conversation's turns share across
// processes and modes: the root of its last turn, so that the next turn
// links to it whichever way it arrives (a wrapped --resume run, the
// editor's hooks, an ACP session in a new agent process); and the mark
// that keeps a conversation from being traced twice.
package conversation

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/atomicfile"
	"github.com/cursor-otel/cursor-otel/internal/envlist"
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/internal/statedir"
)

// StreamTraced is set in the environment of an agent cursor-otel traces
// from its stream or its ACP messages: its hooks then add nothing, so the
// conversation is traced once.
const StreamTraced = "CURSOR_OTEL_STREAM_TRACED"

// Store is the last turns of the conversations traced on this machine: a
// small file each, last/NAME in Dir, the last writer winning. Each holds
// one record of a fixed length: made whole (renamed into place) the first
// time, rewritten in place after that (see rewrite).
type Store struct {
	Dir string
}

// Last is the root of the conversation's last turn.
func (s Store) Last(conversation string) (trace.SpanContext, bool) {
	b, err := os.ReadFile(s.file(conversation))
	if err != nil {
		return trace.SpanContext{}, false
	}
	tid, sid, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
	t, terr := trace.TraceIDFromHex(tid)
	sp, serr := trace.SpanIDFromHex(sid)
	if !ok || terr != nil || serr != nil {
		return trace.SpanContext{}, false // damaged: the next turn starts a chain
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: t, SpanID: sp, TraceFlags: trace.FlagsSampled, Remote: true}), true
}

// SetLast makes root the conversation's last turn.
func (s Store) SetLast(conversation string, root trace.SpanContext) {
	if !root.IsValid() {
		return
	}
	path := s.file(conversation)
	if err := spool.MkdirAll(filepath.Dir(path)); err != nil {
		return
	}
	record := []byte(root.TraceID().String() + " " + root.SpanID().String() + "\n")
	if rewrite(path, record) {
		return
	}
	_ = atomicfile.Write(path, record)
}

// rewrite writes record over the file at path, in place, if the file is
// a record already (a regular file of the same length, this user's own
// and not a link, see openRecord): a turn's write is then a page cache
// write, many times cheaper than a create and a rename over the old file
// on ext4, whose rename over a file starts the new one's writeback
// (docs/performance.md, "measured choices"). The
// record fits one page: a reader sees the old one or the new one, and a
// crash leaves one or the other.
func rewrite(path string, record []byte) bool {
	f, ok := openRecord(path, int64(len(record)))
	if !ok {
		return false
	}
	n, err := f.WriteAt(record, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err == nil && n == len(record)
}

// file is where a conversation's last turn is written down: by a digest
// of its id, which may hold anything.
func (s Store) file(conversation string) string {
	sum := sha256.Sum256([]byte(conversation))
	return filepath.Join(s.Dir, "last", hex.EncodeToString(sum[:12]))
}

// DefaultDir is CURSOR_OTEL_STATE_DIR, else hooks/ in cursor-otel's state
// directory (see statedir), where conversations are kept.
func DefaultDir(environ []string) string {
	if d := envlist.Get(environ, "CURSOR_OTEL_STATE_DIR"); d != "" {
		return d
	}
	base := statedir.Dir(func(name string) string { return envlist.Get(environ, name) })
	if base == "" {
		base = filepath.Join(os.TempDir(), "cursor-otel")
	}
	return filepath.Join(base, "hooks")
}
