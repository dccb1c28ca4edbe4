package tree

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/parse"
	"github.com/cursor-otel/cursor-otel/spanmap"
	"github.com/cursor-otel/cursor-otel/tracer"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

var traceID = regexp.MustCompile(`trace [0-9a-f]{32}`)

// printTrees replays recordings through the span model into a Printer.
func printTrees(t *testing.T, paths ...string) string {
	t.Helper()
	var out bytes.Buffer
	tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(spanmap.NewIDGenerator()), sdktrace.WithSpanProcessor(printer(&out)))
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rec := spanmap.NewStream(context.Background(), tp.Tracer("test"), spanmap.Options{})
		dec := parse.NewDecoder(f)
		for ev, err := dec.Next(); err != io.EOF; ev, err = dec.Next() {
			if err != nil {
				t.Fatal(err)
			}
			rec.Record(ev, time.Time{})
		}
		rec.Finish(spanmap.End{})
		f.Close()
	}
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	return traceID.ReplaceAllString(out.String(), "trace <id>")
}

func TestPrinterGolden(t *testing.T) {
	paths, _ := filepath.Glob("../../examples/*.ndjson")
	if len(paths) < 3 {
		t.Fatalf("found %d examples, want 3", len(paths))
	}
	golden.Check(t, "testdata/examples.golden", printTrees(t, paths...), *update)
}

func printer(w io.Writer) sdktrace.SpanProcessor {
	return tracer.OnTraceEnd(func(t tracer.Trace) { Print(w, t.Spans, t.Finished) })
}

// A trace whose root never ended is printed at shutdown, marked.
func TestPrintUnfinishedTrace(t *testing.T) {
	var out bytes.Buffer
	tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(spanmap.NewIDGenerator()), sdktrace.WithSpanProcessor(printer(&out)))
	ctx, root := tp.Tracer("t").Start(context.Background(), "invoke_agent cursor-agent")
	_, child := tp.Tracer("t").Start(ctx, "chat Auto")
	child.End()
	if out.Len() != 0 {
		t.Fatalf("printed %q before the root ended", out.String())
	}
	_ = tp.Shutdown(context.Background())
	root.End() // after shutdown: not recorded
	got := out.String()
	if !strings.Contains(got, "(not finished)") || !strings.Contains(got, "chat Auto") {
		t.Errorf("shutdown printed %q, want the unfinished trace marked", got)
	}
}

func TestSeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0.00s", 250 * time.Millisecond: "0.25s", 9150 * time.Millisecond: "9.15s",
		59990 * time.Millisecond: "59.99s", 14*time.Minute + 3*time.Second: "14m03s", 90 * time.Minute: "90m00s",
	} {
		if got := seconds(d); got != want {
			t.Errorf("seconds(%v) = %q, want %q", d, got, want)
		}
	}
}

// Text from a recording cannot act on the terminal the tree is printed
// to: an escape sequence in a command or a tool's name is shown, not run.
func TestPrinterShowsControlCharacters(t *testing.T) {
	stream := `{"type":"system","subtype":"init","session_id":"s\u001b[2J","model":"m"}
{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"printf '\u001b]0;owned\u0007'; clear\r"}}},"timestamp_ms":1790000000000}
{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"shellToolCall":{"result":{"success":{"exitCode":0}}}},"timestamp_ms":1790000001000}
{"type":"result","subtype":"success","duration_ms":1500,"timestamp_ms":1790000001500}
`
	path := filepath.Join(t.TempDir(), "escapes.ndjson")
	if err := os.WriteFile(path, []byte(stream), 0o644); err != nil {
		t.Fatal(err)
	}
	out := printTrees(t, path)
	if strings.ContainsAny(out, "\x1b\x07\r") {
		t.Errorf("control characters printed raw:\n%q", out)
	}
	for _, want := range []string{`session s\x1b[2J`, `printf '\x1b]0;owned\x07'; clear`} {
		if !strings.Contains(out, want) {
			t.Errorf("tree does not show %s:\n%s", want, out)
		}
	}
}
