package spool

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Staged parts are published once, however often Publish runs; the
// oldest kept sessions make room for them, and what was just published
// is not dropped before its delivery, even over the bound (a tight
// spool and a collector that is up: every turn arrives).
func TestStageThenPublish(t *testing.T) {
	d := Open(filepath.Join(t.TempDir(), "spool"), 0)
	if _, err := d.Keep(here, session(1, 50)); err != nil {
		t.Fatal(err)
	}
	parts, _ := d.list()
	d.Max = parts[0].size * 2 // room for two such sessions
	dest, err := d.ID(here)
	if err != nil {
		t.Fatal(err)
	}
	staged, tooLarge, err := d.Stage(dest, "conv-1", time.Now().UnixNano(), slices.Concat(session(2, 50), session(3, 50), session(4, 50)))
	if err != nil || len(staged) != 3 || len(tooLarge) != 0 {
		t.Fatalf("staged %d parts, %v; want 3", len(staged), err)
	}
	if parts, _ := d.list(); len(parts) != 1 {
		t.Fatalf("%d parts before publishing; want the kept one alone (staged parts are no parts yet)", len(parts))
	}
	for range 2 {
		if err := d.Publish(staged); err != nil {
			t.Fatal(err)
		}
	}
	var got sent
	r, _ := d.Deliver(context.Background(), got.export(nil), false)
	traces := map[byte]bool{}
	for _, s := range got.spans {
		traces[s.SpanContext().TraceID()[0]] = true
	}
	if r.Sessions != 3 || traces[1] || !traces[2] || !traces[3] || !traces[4] || r.Dropped.Bound != 1 {
		t.Errorf("delivered %d sessions %v, %d said dropped; want the three published, the older kept one dropped to make room", r.Sessions, traces, r.Dropped.Bound)
	}
	// A staged part never written down is removed.
	if _, _, err := d.Stage(dest, "conv-2", 1, session(5, 1)); err != nil {
		t.Fatal(err)
	}
	d.Unstaged("conv-2", nil)
	// A session heavier than the bound is not staged: the caller sends it.
	d.Max = 100
	if staged, tooLarge, err := d.Stage(dest, "conv-3", 1, session(6, 5)); err != nil || len(staged) != 0 || len(tooLarge) != 1 {
		t.Errorf("staged %d, too large %d, %v; want none staged, the session returned", len(staged), len(tooLarge), err)
	}
	if left, _ := filepath.Glob(filepath.Join(d.Path, stagePrefix+"*")); len(left) != 0 {
		t.Errorf("staged parts left: %v", left)
	}
}
