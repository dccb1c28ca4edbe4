package spanmap

import (
	"path/filepath"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/golden"
)

// Spans made beside the recording (replay's MakeBeside) are the spans
// made as they are emitted: the same trees, in the same order, for every
// golden stream and real recording. A queue of two keeps the recording
// waiting on the maker, and -race sees a draft changed after its span
// was handed over.
func TestSpansMadeBesideAreTheSame(t *testing.T) {
	for _, path := range everyStream(t) {
		for _, opts := range []Options{{}, {CaptureContent: true, MaxContent: 200}} {
			t.Run(filepath.Base(path), func(t *testing.T) {
				asEmitted := recordFile(t, path, opts)
				opts.MakeBeside = 2
				beside := recordFile(t, path, opts)
				if want, got := golden.Render(golden.FromStubs(asEmitted)), golden.Render(golden.FromStubs(beside)); got != want {
					t.Errorf("spans made beside differ from spans made as emitted:\n%s\nwant:\n%s", got, want)
				}
				for i := range min(len(asEmitted), len(beside)) {
					if asEmitted[i].Name != beside[i].Name {
						t.Fatalf("span %d made beside is %q, want %q: the order the spans end in changed", i, beside[i].Name, asEmitted[i].Name)
					}
				}
			})
		}
	}
}

// everyStream is every golden stream here, the examples, and the real
// recordings beside the project when they are there.
func everyStream(t *testing.T) []string {
	t.Helper()
	paths, _ := filepath.Glob("testdata/streams/*.ndjson")
	examples, _ := filepath.Glob("../examples/*.ndjson")
	real, _ := filepath.Glob("../../shared/fixtures/real/*.ndjson")
	paths = append(append(paths, examples...), real...)
	if len(paths) < 10 {
		t.Fatalf("%d streams, want the golden ones at least", len(paths))
	}
	return paths
}
