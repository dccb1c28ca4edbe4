package spanmap

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
)

// Any stream at all maps to traces that keep the model's shape, and every
// name and string attribute is valid UTF-8, as OTLP's protobuf requires.
func FuzzRecord(f *testing.F) {
	paths, _ := filepath.Glob("testdata/streams/*.ndjson")
	examples, _ := filepath.Glob("../examples/*.ndjson")
	for _, p := range append(paths, examples...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("{\"type\":\"system\",\"subtype\":\"init\",\"model\":\"\xff\"}\n{\"type\":\"tool-call-completed\",\"tool_name\":\"\xfe\",\"tool_call_id\":\"x\",\"duration_ms\":-5}\n"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		for _, capture := range []bool{false, true} {
			spans := record(t, bytes.NewReader(stream), Options{CaptureContent: capture, MaxContent: 64})
			checkInvariants(t, spans)
			for _, s := range spans {
				if !utf8.ValidString(s.Name) || !utf8.ValidString(s.Status.Description) {
					t.Fatalf("span name %q or status %q is not valid UTF-8", s.Name, s.Status.Description)
				}
				for _, a := range append(append([]attribute.KeyValue{}, s.Attributes...), eventAttrs(s)...) {
					if a.Value.Type() == attribute.STRING && !utf8.ValidString(a.Value.AsString()) {
						t.Fatalf("%s: %s = %q is not valid UTF-8", s.Name, a.Key, a.Value.AsString())
					}
				}
			}
		}
	})
}
