package spanmap

import (
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
)

// Options.Shift moves every time the stream gives, a subagent's steps'
// among them, and nothing else: the trees are the same.
func TestShift(t *testing.T) {
	const shift = 90 * 24 * time.Hour
	plain := recordFile(t, "testdata/streams/newer-shapes.ndjson", Options{})
	moved := recordFile(t, "testdata/streams/newer-shapes.ndjson", Options{Shift: shift})
	if golden.Render(golden.FromStubs(moved)) != golden.Render(golden.FromStubs(plain)) {
		t.Errorf("the shifted trees differ")
	}
	for i := range plain {
		if d := moved[i].StartTime.Sub(plain[i].StartTime); d != shift {
			t.Errorf("%s moved by %v, want %v", plain[i].Name, d, shift)
		}
	}
}
