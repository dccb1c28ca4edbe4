package parse

import (
	"encoding/json"
	"testing"
)

func TestChangedLines(t *testing.T) {
	for _, tt := range []struct {
		old, new       string
		added, removed int64
	}{
		{"", "", 0, 0},
		{"", "a\nb\n", 2, 0},
		{"a\nb\nc\n", "a\nB\nc\n", 1, 1},
		{"a\nb\nc", "a\nc", 0, 1},
		{"a\n", "a\nx\ny\nz\n", 3, 0},
		{"x\nx\n", "x\n", 0, 1},
	} {
		if a, r := ChangedLines(tt.old, tt.new); a != tt.added || r != tt.removed {
			t.Errorf("ChangedLines(%q, %q) = +%d -%d, want +%d -%d", tt.old, tt.new, a, r, tt.added, tt.removed)
		}
	}
}

func TestACPDiffLines(t *testing.T) {
	for _, tt := range []struct {
		content        string
		added, removed int64
		ok             bool
	}{
		{`[{"type":"diff","path":"/a.go","oldText":"a\nb\n","newText":"a\nc\nd\n"},{"type":"content","content":{"type":"text","text":"x"}}]`, 2, 1, true},
		{`[{"type":"diff","path":"/new.go","oldText":null,"newText":"1\n2\n3"}]`, 3, 0, true},
		{`[{"type":"content","content":{"type":"text","text":"x"}}]`, 0, 0, false},
		{`{"type":"text","text":"a chunk"}`, 0, 0, false},
		{`[{"type":"diff","oldText":5}]`, 0, 0, false},
		{``, 0, 0, false},
	} {
		a, r, ok := ACPDiffLines(json.RawMessage(tt.content))
		if a != tt.added || r != tt.removed || ok != tt.ok {
			t.Errorf("ACPDiffLines(%s) = +%d -%d %v, want +%d -%d %v", tt.content, a, r, ok, tt.added, tt.removed, tt.ok)
		}
	}
}

// afterFileEdit's edits are its lines changed.
func TestHookEditLines(t *testing.T) {
	e, err := DecodeHook([]byte(`{"hook_event_name":"afterFileEdit","conversation_id":"c","generation_id":"g","file_path":"/w/a.go",
		"edits":[{"old_string":"a\nb","new_string":"a\nB\nC"},{"old_string":"","new_string":"x\n"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	f := e.Tool.Facts
	if f.LinesAdded == nil || f.LinesRemoved == nil || *f.LinesAdded != 3 || *f.LinesRemoved != 1 {
		t.Errorf("lines %v %v, want +3 -1", f.LinesAdded, f.LinesRemoved)
	}
}
