package spool

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A session heavier than the bound by itself is never written, and
// never said to be kept: Keep says it was dropped as too large, the
// sessions kept before stay, and the next flush says it too.
func TestKeepDropsASessionLargerThanTheBound(t *testing.T) {
	d := Open(filepath.Join(t.TempDir(), "spool"), 0)
	if _, err := d.Keep(here, session(1, 2)); err != nil {
		t.Fatal(err)
	}
	st, _ := d.Stat()
	d.Max = st.Bytes * 3
	k, err := d.Keep(here, session(2, 200))
	if err != nil {
		t.Fatal(err)
	}
	if k.Sessions != 0 || k.Spans != 0 || k.TooLarge != 1 || k.TooLargeSpans != 201 || k.Dropped != 0 {
		t.Errorf("kept %+v; want nothing kept, 1 session of 201 spans too large, no older one dropped", k)
	}
	if fate := k.Traces[session(2, 0)[0].SpanContext().TraceID()]; fate != FateTooLarge {
		t.Errorf("the session's fate: %q, want %q", fate, FateTooLarge)
	}
	if after, _ := d.Stat(); after.Sessions != 1 || after.Bytes != st.Bytes {
		t.Errorf("spool after: %+v; want the session kept before, alone", after)
	}
	var got sent
	r, _ := d.Deliver(context.Background(), got.export(nil), false)
	if r.Dropped.TooLarge != 1 || r.Dropped.Bound != 0 || r.Sessions != 1 {
		t.Errorf("delivery %+v; want the one kept delivered and the one too large said", r)
	}
	if again, _ := d.Deliver(context.Background(), got.export(nil), false); again.Dropped.Any() {
		t.Errorf("a second delivery says %+v dropped again", again.Dropped)
	}
}

// A background delivery, which no one reads, neither drops sessions nor
// takes the drop log: a run or flush after it says what was dropped.
func TestBackgroundDeliveryLeavesDropsToBeTold(t *testing.T) {
	d := Open(filepath.Join(t.TempDir(), "spool"), 0)
	for i := byte(1); i <= 3; i++ {
		if _, err := d.Keep(here, session(i, 20)); err != nil {
			t.Fatal(err)
		}
	}
	d.addDropped(dropBound, 2)
	st, _ := d.Stat()
	small := Open(d.Path, st.Bytes/2) // a run with a smaller bound since
	var bg sent
	exp := bg.export(errDown)
	exp.Background = true
	r, _ := small.Deliver(context.Background(), exp, false)
	if r.Dropped.Bound != 2 {
		t.Errorf("background delivery read %+v dropped; want the 2 logged", r.Dropped)
	}
	if after, _ := small.Stat(); after.Sessions != 3 {
		t.Errorf("%d sessions left after a background delivery; want all 3: it drops nothing", after.Sessions)
	}
	var fg sent
	r, _ = small.Deliver(context.Background(), fg.export(errDown), false)
	if r.Dropped.Bound < 3 {
		t.Errorf("flush after it said %+v dropped; want the 2 logged and those it dropped now", r.Dropped)
	}
	if _, err := os.Stat(filepath.Join(d.Path, droppedFile)); err == nil {
		t.Error("the drop log is still there after a flush said it")
	}
}

// The drop log reads what older versions wrote (a bare count) and skips
// what it cannot read.
func TestDropLogReadsOlderCounts(t *testing.T) {
	got := parseDrops([]byte("3\nbound 2\ntoo-large 1\nnonsense\nbound -4\n"))
	if got != (Drops{Bound: 5, TooLarge: 1}) {
		t.Errorf("parsed %+v, want 5 at the bound and 1 too large", got)
	}
}

// A session too large for the spool handed over is given back to the
// run to send, and not logged dropped: only Keep, which has no one to
// give it back to, drops it.
func TestHandOverGivesBackWhatIsTooLarge(t *testing.T) {
	d := Open(filepath.Join(t.TempDir(), "spool"), 1024)
	h, k, err := d.HandOver(here, session(1, 50))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Parts) != 0 || len(h.Rest) != 51 || k.TooLarge != 1 {
		t.Errorf("handed %d parts, gave back %d spans (kept %+v); want none handed, all 51 given back", len(h.Parts), len(h.Rest), k)
	}
	if d.Dropped().Any() {
		t.Errorf("drop log %+v: a session the run sends itself is not dropped", d.Dropped())
	}
}
