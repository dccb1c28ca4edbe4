package parse

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"
)

// seedLines adds every line of the project's recordings, and the
// recordings whole, to a fuzz corpus.
func seedCorpus(f *testing.F, perLine bool) {
	paths, _ := filepath.Glob("../examples/*.ndjson")
	more, _ := filepath.Glob("../spanmap/testdata/streams/*.ndjson")
	for _, p := range append(paths, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if !perLine {
			f.Add(b)
			continue
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			f.Add(line)
		}
	}
}

// Decode never panics, never returns nil, and keeps the line number.
func FuzzDecode(f *testing.F) {
	seedCorpus(f, true)
	f.Add([]byte(`{"type":"tool_call","subtype":"completed","tool_call":{"xToolCall":{"result":{"success":{"exitCode":"7"}}}}}`))
	f.Add([]byte("{\"type\":\"tool-call-started\",\"tool_name\":\"Sh\xffell\",\"tool_call_id\":\"\xfe\",\"parameters\":{\"command\":\"ls \xff\"}}"))
	f.Fuzz(func(t *testing.T, line []byte) {
		ev := Decode(line, 42)
		if ev == nil {
			t.Fatal("Decode returned nil")
		}
		if ev.Head().Line != 42 {
			t.Fatalf("line number %d, want 42", ev.Head().Line)
		}
		if inv, ok := ev.(*Invalid); ok && (inv.Size != len(line) || inv.Err == nil) {
			t.Fatalf("Invalid{Size: %d, Err: %v} for a %d-byte line", inv.Size, inv.Err, len(line))
		}
		checkUTF8(t, reflect.ValueOf(ev), "event")
	})
}

// checkUTF8 fails when any string an event holds, other than raw JSON
// (Args, Raw), is not valid UTF-8.
func checkUTF8(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			checkUTF8(t, v.Elem(), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			name := v.Type().Field(i).Name
			if name != "Args" && name != "Raw" && v.Type().Field(i).IsExported() {
				checkUTF8(t, v.Field(i), path+"."+name)
			}
		}
	case reflect.String:
		if !utf8.ValidString(v.String()) {
			t.Fatalf("%s = %q is not valid UTF-8", path, v.String())
		}
	}
}

// The decoder ends on any input, gives one event per non-blank line, in
// order, and never fails on content.
func FuzzDecoder(f *testing.F) {
	seedCorpus(f, false)
	f.Add([]byte("\r\n\n{}\r\nx"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		want := 0
		for _, line := range bytes.Split(stream, []byte("\n")) {
			if len(bytes.TrimSpace(bytes.TrimSuffix(line, []byte("\r")))) > 0 {
				want++ // the empty remainder after a final newline counts as blank
			}
		}
		dec := NewDecoder(bytes.NewReader(stream))
		got, last := 0, 0
		eachEvent(t, dec, func(ev Event) {
			if ev.Head().Line <= last {
				t.Fatalf("line %d after line %d", ev.Head().Line, last)
			}
			last = ev.Head().Line
			got++
		})
		if got != want {
			t.Fatalf("%d events for %d non-blank lines", got, want)
		}
	})
}
