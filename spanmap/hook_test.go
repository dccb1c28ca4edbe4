package spanmap

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/parse"
)

// hookSession steps a recorded-shape interactive session through Hooks,
// one event a second apart, carrying the state between events as JSON as
// hook processes do, and makes the records spans.
func hookSession(t *testing.T, opts Options) tracetest.SpanStubs {
	t.Helper()
	f, err := os.Open("../testdata/hooks/interactive-session.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(NewIDGenerator()), sdktrace.WithSyncer(exp))
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	var saved []byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		ev, err := parse.DecodeHook(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		var st HookState // each event a new process: the state is read back
		if saved != nil {
			if err := jsonUnmarshal(saved, &st); err != nil {
				t.Fatal(err)
			}
		}
		now = now.Add(time.Second)
		for _, r := range NewHooks(opts).Step(&st, ev, now) {
			b, err := r.MarshalJSON() // and the records, through the spool
			if err != nil {
				t.Fatal(err)
			}
			var back SpanRecord
			if err := back.UnmarshalJSON(b); err != nil {
				t.Fatal(err)
			}
			Emit(context.Background(), tp.Tracer("hook"), back)
		}
		if saved, err = jsonMarshal(&st); err != nil {
			t.Fatal(err)
		}
	}
	return exp.GetSpans()
}

// An interactive session through its hooks is the span model a stream
// makes: a trace, the session, a chat per generation, each tool under the
// generation that ran it, tool times from the events' durations.
func TestHookSessionGolden(t *testing.T) {
	spans := hookSession(t, Options{})
	checkInvariants(t, spans)
	golden.Check(t, "testdata/hooks-interactive-session.golden", golden.Render(golden.FromStubs(spans)), *update)
	content := hookSession(t, Options{CaptureContent: true, MaxContent: 200})
	golden.Check(t, "testdata/hooks-interactive-session-content.golden", golden.Render(golden.FromStubs(content)), *update)
}

func jsonMarshal(v any) ([]byte, error)   { return json.Marshal(v) }
func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
