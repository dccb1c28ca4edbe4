package spool

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/protobuf/proto"
)

// appendTrace journals one session's spans as the tracer does.
func appendTrace(t *testing.T, j *Journal, spans []sdktrace.ReadOnlySpan) {
	t.Helper()
	payload, err := proto.Marshal(toOTLP(spans, convert(spans)))
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(spans[0].SpanContext().TraceID(), len(spans), payload); err != nil {
		t.Fatal(err)
	}
}

// die is the writer killed: its lock and open segment are let go (the
// system closes a dead process's files), the files stay.
func (j *Journal) die() {
	j.mu.Lock()
	if j.f != nil {
		_ = j.f.Close()
	}
	j.mu.Unlock()
	j.unlock()
}

func TestJournalOfALiveWriterWaits(t *testing.T) {
	d := Open(t.TempDir(), 0)
	j, err := d.OpenJournal(here)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	appendTrace(t, j, session(1, 2))
	if d.HasKept(here) || d.Holds() {
		t.Error("a live writer's journal is said pending")
	}
	var s sent
	if _, err := d.Deliver(context.Background(), s.export(nil), false); err != nil || len(s.spans) != 0 {
		t.Fatalf("delivered %d spans of a live writer's journal (%v)", len(s.spans), err)
	}
}

func TestJournalOfAWriterThatDiedIsDeliveredOnce(t *testing.T) {
	d := Open(t.TempDir(), 0)
	j, err := d.OpenJournal(here)
	if err != nil {
		t.Fatal(err)
	}
	appendTrace(t, j, session(1, 2)) // exported, then removed
	j.Remove(j.Cut())
	appendTrace(t, j, session(2, 3)) // cut, not yet exported
	j.Cut()
	appendTrace(t, j, session(3, 1)) // appended after
	j.die()
	if !d.HasKept(here) || !d.Holds() || !d.Look(here).HasKept {
		t.Fatal("a dead writer's journal is not pending")
	}
	var s sent
	r, err := d.Deliver(context.Background(), s.export(nil), false)
	if err != nil || r.Err != nil {
		t.Fatal(err, r.Err)
	}
	if r.Sessions != 2 || len(s.spans) != 4+2 {
		t.Errorf("delivered %d sessions, %d spans; want 2, 6", r.Sessions, len(s.spans))
	}
	left, _ := filepath.Glob(filepath.Join(d.Path, journalPrefix+"*"))
	if len(left) > 0 {
		t.Errorf("left after delivery: %v", left)
	}
	s = sent{}
	if _, err := d.Deliver(context.Background(), s.export(nil), false); err != nil || len(s.spans) != 0 {
		t.Errorf("delivered again: %d spans (%v)", len(s.spans), err)
	}
}

func TestJournalRecordCutShort(t *testing.T) {
	d := Open(t.TempDir(), 0)
	j, err := d.OpenJournal(here)
	if err != nil {
		t.Fatal(err)
	}
	appendTrace(t, j, session(1, 2))
	appendTrace(t, j, session(2, 2))
	path := filepath.Join(d.Path, j.name)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, info.Size()-10); err != nil { // killed writing the second
		t.Fatal(err)
	}
	j.die()
	var s sent
	r, err := d.Deliver(context.Background(), s.export(nil), false)
	if err != nil || r.Sessions != 1 || len(s.spans) != 3 || r.Damaged != 1 {
		t.Errorf("delivered %d sessions, %d spans, %d damaged (%v); want 1, 3, 1", r.Sessions, len(s.spans), r.Damaged, err)
	}
}
