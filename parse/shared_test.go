package parse

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every line of every real recording decodes to an event this package
// knows, and every tool event names its tool and its call.
func TestRealRecordingsDecodeFully(t *testing.T) {
	paths, _ := filepath.Glob("../../shared/fixtures/real/*.ndjson")
	if len(paths) == 0 {
		t.Skip("../shared/fixtures/real not present")
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			dec := NewDecoder(f)
			counts := map[string]int{}
			eachEvent(t, dec, func(ev Event) {
				switch e := ev.(type) {
				case *Invalid, *Unknown:
					t.Errorf("line %d: %#v", ev.Head().Line, ev)
				case *ToolStarted:
					if e.Call.Name == "" || e.Call.ID == "" {
						t.Errorf("line %d: tool start without name or id: %+v", e.Line, e.Call)
					}
				case *ToolCompleted:
					if e.Call.Name == "" || e.Call.ID == "" || e.Result.Kind == "" {
						t.Errorf("line %d: tool completion without name, id or result: %+v", e.Line, e.Call)
					}
				}
				counts[ev.Head().Type]++
			})
			if counts["system"] != 1 || counts["result"] != 1 {
				t.Errorf("events by type %v: want one system/init and one result", counts)
			}
		})
	}
}

// The one-line examples in the seed documents, in every dialect, decode to
// known events; only the payload client's "raw" wrapper is unknown.
// brokenSeedLine is the one seed example that is not JSON as printed.
const brokenSeedLine = "002_de682a1946d1c1f1.txt:248"

func TestSeedExamplesDecode(t *testing.T) {
	paths, _ := filepath.Glob("../../shared/seeds/*.txt")
	if len(paths) == 0 {
		t.Skip("../shared/seeds not present")
	}
	decoded := 0
	var invalid []string
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(b, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if !bytes.HasPrefix(line, []byte(`{"type`)) || !bytes.HasSuffix(line, []byte("}")) {
				continue
			}
			decoded++
			where := fmt.Sprintf("%s:%d", filepath.Base(path), i+1)
			switch e := Decode(line, i+1).(type) {
			case *Invalid:
				// The payload client's document has one example missing a
				// closing brace: an unreadable line is reported, not fatal.
				if where != brokenSeedLine {
					t.Errorf("%s: invalid: %v", where, e.Err)
				}
				invalid = append(invalid, where)
			case *Unknown:
				if e.Type != "raw" {
					t.Errorf("%s:%d: unknown type %q", filepath.Base(path), i+1, e.Type)
				}
			}
		}
	}
	if len(invalid) != 1 {
		t.Errorf("invalid seed lines %v, want only %s", invalid, brokenSeedLine)
	}
	if decoded < 25 {
		t.Errorf("found only %d one-line examples in the seeds; the extraction is broken", decoded)
	}
	t.Logf("%d one-line examples decoded", decoded)
}

func TestSeedDialectsAreAllCovered(t *testing.T) {
	paths, _ := filepath.Glob("../../shared/seeds/*.txt")
	if len(paths) == 0 {
		t.Skip("../shared/seeds not present")
	}
	var all strings.Builder
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		all.Write(b)
	}
	// Each dialect's marker appears in the seeds and has a case in
	// TestDecodeDialects; this guards against a seed the tests forgot.
	for _, marker := range []string{`"tool-call-started"`, `"payload"`, `"model_call_id"`, `"thinking"`, `writeFileToolCall`, "function"} {
		if !strings.Contains(all.String(), marker) {
			t.Errorf("seed marker %s not found: the seeds changed, review the dialect tests", marker)
		}
	}
}
