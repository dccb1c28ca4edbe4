package main

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// The floor stands for replay's span-dense shape only while its spans
// weigh what replay's do there: about 9 attributes and 300 bytes of keys
// and string values a span (the dense mix's spans, counted at the
// receiver: 9.09 and 299.5).
func TestSpansAreShapedAsReplays(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	spans(context.Background(), tp.Tracer("test"), 100)
	ended := rec.Ended()
	if len(ended) != 100 {
		t.Fatalf("%d spans, want 100", len(ended))
	}
	names, attrs, bytes := map[string]int{}, 0, 0
	for _, s := range ended {
		names[s.Name()]++
		attrs += len(s.Attributes())
		for _, a := range s.Attributes() {
			bytes += len(a.Key) + len(a.Value.AsString())
		}
	}
	want := map[string]int{"invoke_agent cursor-agent": 20, "chat Auto": 40, "execute_tool shell": 40}
	for name, n := range want {
		if names[name] != n {
			t.Errorf("%d spans named %q, want %d", names[name], name, n)
		}
	}
	t.Logf("%.2f attributes and %.0f bytes a span", float64(attrs)/100, float64(bytes)/100)
	if perSpan := float64(attrs) / 100; perSpan < 8.5 || perSpan > 10 {
		t.Errorf("%.2f attributes a span, want about 9", perSpan)
	}
	if perSpan := float64(bytes) / 100; perSpan < 270 || perSpan > 330 {
		t.Errorf("%.0f bytes of keys and values a span, want about 300", perSpan)
	}
}

// The floor's wrapper exports what the bench's small run makes, 11 spans,
// and exits with the command's status, as cursor-otel does.
func TestWrapExportsElevenSpansAndTheExitStatus(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	status, err := wrap(context.Background(), tp.Tracer("test"), []string{"sh", "-c", "exit 3"})
	if err != nil || status != 3 {
		t.Fatalf("status %d, %v; want 3", status, err)
	}
	if n := len(rec.Ended()); n != 11 {
		t.Errorf("%d spans, want 11", n)
	}
}

// The least reading finds every line's type, whatever order a line's keys
// come in; a key quoted inside a string is escaped there, and not taken.
func TestReadStreamFindsEachLinesType(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.ndjson")
	stream := `{"type":"system","subtype":"init"}
{"session_id":"s","text":"a \"type\":\"x\" in text","type":"thinking"}
{"subtype":"delta","type":"thinking"}

not json
{"type":"tool_call","tool_call":{"shellToolCall":{"args":{}}}}
`
	if err := os.WriteFile(path, []byte(stream), 0o644); err != nil {
		t.Fatal(err)
	}
	types, err := readStream(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"system": 1, "thinking": 2, "tool_call": 1}
	if !maps.Equal(types, want) {
		t.Errorf("types %v, want %v", types, want)
	}
	if _, err := readStream(filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Error("no error for a file that is not there")
	}
}
