//go:build unix

package conversation

import (
	"os"
	"path/filepath"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

// A record that is a link to another file, symbolic or hard, is replaced,
// not written through: the file it points to is left as it was.
func TestRecordLinksAreNotWrittenThrough(t *testing.T) {
	root := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: trace.FlagsSampled})
	record := root.TraceID().String() + " " + root.SpanID().String() + "\n"
	for _, link := range []struct {
		name string
		make func(target, path string) error
	}{{"symbolic", os.Symlink}, {"hard", os.Link}} {
		t.Run(link.name, func(t *testing.T) {
			s := Store{Dir: t.TempDir()}
			target := filepath.Join(t.TempDir(), "elsewhere")
			other := []byte(string(make([]byte, len(record)-1)) + "\n") // a file of a record's length
			if err := os.WriteFile(target, other, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(s.file("conv")), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := link.make(target, s.file("conv")); err != nil {
				t.Skip(err)
			}
			s.SetLast("conv", root)
			if b, _ := os.ReadFile(target); string(b) != string(other) {
				t.Errorf("the file the %s link points to now holds %q", link.name, b)
			}
			if got, ok := s.Last("conv"); !ok || got.SpanID() != root.SpanID() {
				t.Errorf("last %v, %v; want %v", got, ok, root)
			}
		})
	}
}
