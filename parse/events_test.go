package parse

import (
	"io"
	"testing"
)

// eachEvent calls fn with each event dec gives until the end of the
// stream, failing t on a read error.
func eachEvent(t testing.TB, dec *Decoder, fn func(Event)) {
	t.Helper()
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		fn(ev)
	}
}
