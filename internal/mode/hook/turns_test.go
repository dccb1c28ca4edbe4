package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/spanmap"
)

// step runs the hook for one event at now, recording into dir.
func step(t *testing.T, dir string, now time.Time, event string) {
	t.Helper()
	var out strings.Builder
	if status := Run(Config{StateDir: dir, Stdin: strings.NewReader(event), Stdout: &out, Now: func() time.Time { return now }}); status != 0 {
		t.Fatalf("status %d", status)
	}
}

// spooled are the records waiting in dir for their export, whatever
// their destination.
func spooled(t *testing.T, dir string) []spanmap.SpanRecord {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, recordsPrefix+"*"+recordsSuffix))
	var out []spanmap.SpanRecord
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, readRecords(data)...)
	}
	return out
}

func names(records []spanmap.SpanRecord) []string {
	var out []string
	for _, r := range records {
		out = append(out, r.Name)
	}
	return out
}

// A turn's spans are held until the turn closes, then go to the spool
// whole; a turn whose stop never came is closed by any hook run 30
// minutes after its last event, and only then: before, nothing of it is
// exported.
func TestTurnHeldUntilClosed(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	a := `"conversation_id":"conv-a","generation_id":"g1"`
	step(t, dir, t0, `{"hook_event_name":"beforeSubmitPrompt",`+a+`}`)
	step(t, dir, t0.Add(time.Second), `{"hook_event_name":"postToolUse",`+a+`,"tool_name":"Read","tool_input":{"file_path":"x"},"tool_use_id":"t1","duration":5}`)
	if got := spooled(t, dir); len(got) != 0 {
		t.Fatalf("spooled %v while the turn is under way; want nothing until it closes", names(got))
	}
	if held, _ := filepath.Glob(filepath.Join(dir, "turns", "*")); len(held) != 1 {
		t.Fatalf("held files %v; want the turn's one", held)
	}
	// Another conversation 29 minutes later: the turn is not yet idle.
	b := `"conversation_id":"conv-b","generation_id":"h1"`
	step(t, dir, t0.Add(29*time.Minute), `{"hook_event_name":"beforeSubmitPrompt",`+b+`}`)
	if got := spooled(t, dir); len(got) != 0 {
		t.Fatalf("spooled %v 29 minutes after the turn's last event; want nothing", names(got))
	}
	// 31 minutes after its last event, any hook run closes it, whole.
	step(t, dir, t0.Add(32*time.Minute), `{"hook_event_name":"afterAgentResponse",`+b+`,"text":"x"}`)
	got := spooled(t, dir)
	if len(got) != 3 {
		t.Fatalf("spooled %v; want conv-a's turn whole: its tool, its chat, its root", names(got))
	}
	root := got[len(got)-1]
	if root.Name != spanmap.SessionName || root.Status.String() != "Error" ||
		spanmap.Value(root.Attrs, spanmap.TurnEnd).AsString() != spanmap.TurnEndIdle || !root.End.Equal(t0.Add(time.Second)) {
		t.Errorf("root %s, status %v, end %v, ended by %q; want the turn's root, Error, at its last event, idle",
			root.Name, root.Status, root.End, spanmap.Value(root.Attrs, spanmap.TurnEnd).AsString())
	}
	for _, r := range got {
		if r.TraceID != root.TraceID {
			t.Errorf("%s in another trace than its turn's", r.Name)
		}
	}
	if held, _ := filepath.Glob(filepath.Join(dir, "turns", "*")); len(held) != 0 {
		t.Errorf("held files %v; want none (conv-b's turn has finished nothing yet)", held)
	}
	if open, _ := filepath.Glob(filepath.Join(dir, "open", "*")); len(open) != 1 {
		t.Errorf("open marks %v; want conv-b's alone", open)
	}
}
