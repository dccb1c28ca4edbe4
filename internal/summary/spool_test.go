package summary

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Held JSON reports are written at Finish, each with what became of its
// session, the run's older drops on its last one; reports of sessions
// exported are written as they were.
func TestHeldJSONSaysWhatBecameOfEachSession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.json")
	f := &Files{JSON: path}
	f.HoldJSON()
	for _, id := range []string{"aa", "bb", "cc"} {
		f.Write(Report{TraceID: id, Outcome: "success"})
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("JSON written before Finish")
	}
	f.Spooled(map[string]Spool{"aa": {Kept: true}, "bb": {Dropped: "too_large"}}, 2)
	f.Finish()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got = append(got, m)
	}
	want := []string{`{"kept":true}`, `{"dropped":"too_large"}`, `{"older_sessions_dropped":2}`}
	for i, m := range got {
		s, _ := json.Marshal(m["spool"])
		if string(s) != want[i] || m["trace_id"] == nil {
			t.Errorf("session %d: spool %s, want %s", i, s, want[i])
		}
	}
}
