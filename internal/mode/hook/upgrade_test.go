package hook

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/spanmap"
)

// A user upgrades mid-conversation. testdata/upgrade/state is a state
// directory as the version at 66f67ed left it: turn g1 built and kept in
// the spool, turn g2's prompt and the start of its shell call journaled,
// not yet built. This version journals the rest of g2 and builds: g1 is
// kept once (not built again), g2 is whole, its shell call started at
// the start the old version journaled, and g2 links to g1.
func TestUpgradeMidConversation(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "upgrade", "state"))); err != nil {
		t.Fatal(err)
	}
	c := `"conversation_id":"conv-a","generation_id":"g2"`
	step(t, dir, t0.Add(2*time.Minute+3*time.Second), `{"hook_event_name":"postToolUse",`+c+`,"tool_name":"Shell","tool_input":{"command":"go test ./..."},"tool_use_id":"t-g2","duration":2000}`)
	step(t, dir, t0.Add(2*time.Minute+4*time.Second), `{"hook_event_name":"stop",`+c+`,"status":"completed"}`)
	build(dir, t0.Add(4*time.Minute), "")

	if k := kept(t, dir); k.Sessions != 2 || k.Spans != 6 || k.Damaged != 0 {
		t.Errorf("kept %d sessions, %d spans, %d damaged; want g1 as the old version kept it and g2 whole: 2, 6, 0", k.Sessions, k.Spans, k.Damaged)
	}
	if n := journalLeft(dir); n != 0 {
		t.Errorf("%d events left in the journal", n)
	}
	spans := keptSpans(t, dir)
	roots := rootsOf(spans)
	if len(roots) != 2 {
		t.Fatalf("%d roots kept; want 2", len(roots))
	}
	g1, g2 := roots[0], roots[1]
	if got := g1.SpanContext().TraceID().String(); got != "02a6cabd56e7a8699d65223d81579ea9" {
		t.Errorf("the first turn is trace %s; want the one the old version kept", got)
	}
	if l := g2.Links(); len(l) != 1 || l[0].SpanContext.SpanID() != g1.SpanContext().SpanID() || l[0].SpanContext.TraceID() != g1.SpanContext().TraceID() {
		t.Errorf("g2 links to %v; want g1's root %v", l, g1.SpanContext())
	}
	if want := t0.Add(2 * time.Minute); !g2.StartTime().Equal(want) {
		t.Errorf("g2 starts at %v; want its prompt, journaled by the old version, at %v", g2.StartTime(), want)
	}
	var shell bool
	for _, s := range spans {
		if s.SpanContext().TraceID() == g2.SpanContext().TraceID() && spanmap.Value(s.Attributes(), spanmap.ToolName).AsString() == "shell" {
			shell = true
			if want := t0.Add(2*time.Minute + time.Second); !s.StartTime().Equal(want) {
				t.Errorf("the shell call starts at %v; want its preToolUse, journaled by the old version, at %v", s.StartTime(), want)
			}
		}
	}
	if !shell {
		t.Error("no shell span in g2")
	}
}
