package spanmap

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/parse"
)

// A run of thinking deltas recorded as its first and its last gives the
// spans recording each delta gives, for every golden stream and real
// recording, with stalls measured and without.
func TestFoldedDeltasAreTheSame(t *testing.T) {
	paths, _ := filepath.Glob("testdata/streams/*.ndjson")
	examples, _ := filepath.Glob("../examples/*.ndjson")
	real, _ := filepath.Glob("../../shared/fixtures/real/*.ndjson")
	paths = append(append(paths, examples...), real...)
	if len(paths) < 10 {
		t.Fatalf("%d streams, want the golden ones at least", len(paths))
	}
	for _, path := range paths {
		for _, opts := range []Options{{}, {StallAfter: 2 * time.Second}} {
			t.Run(filepath.Base(path), func(t *testing.T) {
				folded := recordFile(t, path, opts)
				opts.unfolded = true
				oneByOne := recordFile(t, path, opts)
				if want, got := golden.Render(golden.FromStubs(oneByOne)), golden.Render(golden.FromStubs(folded)); got != want {
					t.Errorf("folded deltas make other spans:\n%s\nwant:\n%s", got, want)
				}
			})
		}
	}
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
		render := func(unfolded bool) string {
			exp := tracetest.NewInMemoryExporter()
			tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(NewIDGenerator()), sdktrace.WithSyncer(exp))
			rec := NewRecorder(context.Background(), tp.Tracer("fuzz"), Options{StallAfter: 250 * time.Millisecond, unfolded: unfolded,
				Now: func() time.Time { return time.Unix(1790000000, 0) }})
			for i := 0; i+2 < len(program); i += 3 {
				kind, flags := program[i], program[i+2]
				if kind%14 == 2 && flags&16 != 0 {
					flags |= 8 // a delta's time goes back more often than other events'
				}
				rec.Record(parse.Decode(programLine(kind, program[i+1], flags, i/3), i/3+1), time.Time{})
			}
			rec.Finish(End{})
			return golden.Render(golden.FromStubs(exp.GetSpans()))
		}
		if want, got := render(true), render(false); got != want {
			t.Fatalf("folded deltas make other spans:\n%s\nwant:\n%s", got, want)
		}
	})
}
