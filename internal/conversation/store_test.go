package conversation

import (
	"os"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

// The last turn of a conversation, as one process writes it down and
// another reads it; a damaged file starts a chain anew.
func TestStore(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	if _, ok := s.Last("conv"); ok {
		t.Fatal("a last turn before any was written")
	}
	root := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: trace.FlagsSampled})
	s.SetLast("conv", root)
	got, ok := s.Last("conv")
	if !ok || got.TraceID() != root.TraceID() || got.SpanID() != root.SpanID() || !got.IsRemote() {
		t.Fatalf("last %v, %v; want %v, remote", got, ok, root)
	}
	if _, ok := s.Last("another"); ok {
		t.Error("another conversation has this one's last turn")
	}
	// The next turn is written over it, in place; a longer record (a
	// damaged one) is replaced whole.
	next := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{3}, SpanID: trace.SpanID{4}, TraceFlags: trace.FlagsSampled})
	before, err := os.Stat(s.file("conv"))
	if err != nil {
		t.Fatal(err)
	}
	s.SetLast("conv", next)
	if got, _ := s.Last("conv"); got.SpanID() != next.SpanID() {
		t.Fatalf("after the next turn the last is %v, want %v", got, next)
	}
	if after, err := os.Stat(s.file("conv")); err != nil || !os.SameFile(before, after) {
		t.Errorf("the next turn made a new file (%v), want the record written over in place", err)
	}
	if err := os.WriteFile(s.file("conv"), []byte("a record that is longer than one, and damaged\n\n\n\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.SetLast("conv", root)
	if got, ok := s.Last("conv"); !ok || got.SpanID() != root.SpanID() {
		t.Errorf("over a damaged record of another length the last is %v, %v; want %v", got, ok, root)
	}
	if err := os.WriteFile(s.file("conv"), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Last("conv"); ok {
		t.Error("a damaged file read as a last turn")
	}
}

// CURSOR_OTEL_STATE_DIR names the directory; else the state directory's
// hooks/.
func TestDefaultDir(t *testing.T) {
	if got := DefaultDir([]string{"CURSOR_OTEL_STATE_DIR=/x", "HOME=/h"}); got != "/x" {
		t.Errorf("%q; want /x", got)
	}
}
