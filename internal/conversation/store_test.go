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
