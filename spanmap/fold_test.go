package spanmap

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/parse"
)

// Thinking deltas folded by replay's decoder (parse.WithFoldedDeltas)
// give the spans recording each delta gives, for every golden stream and
// real recording, with stalls measured and without.
func TestFoldedDeltasAreTheSame(t *testing.T) {
	for _, path := range everyStream(t) {
		for _, opts := range []Options{{}, {StallAfter: 2 * time.Second}} {
			t.Run(filepath.Base(path), func(t *testing.T) {
				stream, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				want := golden.Render(golden.FromStubs(record(t, bytes.NewReader(stream), opts)))
				if got := golden.Render(golden.FromStubs(recordAhead(t, stream, opts))); got != want {
					t.Errorf("folded deltas make other spans:\n%s\nwant:\n%s", got, want)
				}
			})
		}
	}
}

// recordAhead records stream as replay does: decoded ahead, without
// content, its deltas folded up to the stall threshold.
func recordAhead(t testing.TB, stream []byte, opts Options) tracetest.SpanStubs {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return replayTime }
	}
	rec, exp := newTestRecorder(opts)
	for b := range parse.DecodeAhead(context.Background(), bytes.NewReader(stream), parse.WithoutContent(), parse.WithFoldedDeltas(opts.StallAfter)) {
		if b.Err != nil {
			t.Fatal(b.Err)
		}
		for _, ev := range b.Events {
			rec.Record(ev, time.Time{})
		}
	}
	rec.Finish(End{})
	return exp.GetSpans()
}

// Whatever the order of events and their times, folding changes no span:
// the fuzzer's programs (see FuzzEventOrders) with thinking deltas
// between every other event, times going back and gaps a stall marks.
func FuzzFoldedDeltas(f *testing.F) {
	f.Add([]byte{0, 0, 0, 2, 0, 0, 2, 0, 0, 2, 0, 8, 2, 0, 0, 4, 1, 0, 2, 0, 1, 2, 0, 0, 10, 0, 0})
	f.Add([]byte{0, 0, 0, 2, 0, 2, 2, 0, 0, 3, 0, 0, 2, 0, 0, 6, 1, 0, 2, 0, 0, 7, 1, 0, 2, 0, 0})
	f.Fuzz(func(t *testing.T, program []byte) {
		if len(program) > 3*2000 {
			return
		}
		var stream bytes.Buffer
		for i := 0; i+2 < len(program); i += 3 {
			kind, flags := program[i], program[i+2]
			if kind%14 == 2 && flags&16 != 0 {
				flags |= 8 // a delta's time goes back more often than other events'
			}
			stream.Write(programLine(kind, program[i+1], flags, i/3))
			stream.WriteByte('\n')
		}
		opts := Options{StallAfter: 250 * time.Millisecond, Now: func() time.Time { return time.Unix(1790000000, 0) }}
		want := golden.Render(golden.FromStubs(record(t, bytes.NewReader(stream.Bytes()), opts)))
		if got := golden.Render(golden.FromStubs(recordAhead(t, stream.Bytes(), opts))); got != want {
			t.Fatalf("folded deltas make other spans:\n%s\nwant:\n%s", got, want)
		}
	})
}
