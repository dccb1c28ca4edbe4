package spool

import (
	"os"
	"path/filepath"
	"testing"
)

// One look says what Pending, Prompt and WaitingElsewhere say, and
// NewlyWaitingIn tells as NewlyWaiting does.
func TestLookSaysWhatEachQuestionSays(t *testing.T) {
	d := Open(t.TempDir(), 0)
	other := Destination{Address: "http://elsewhere:4317", Protocol: "grpc"}
	check := func(when string) {
		t.Helper()
		for _, to := range []Destination{here, other} {
			l := d.Look(to)
			if l.HasKept != d.HasKept(to) || l.AnsweredPromptly != d.AnsweredPromptly(to) || l.Elsewhere != d.WaitingElsewhere(to) {
				t.Errorf("%s, for %s: look %+v, asked one by one: pending %v, prompt %v, elsewhere %d",
					when, to.Address, l, d.HasKept(to), d.AnsweredPromptly(to), d.WaitingElsewhere(to))
			}
		}
	}
	check("no spool")
	if _, err := d.Keep(other, session(1, 1)); err != nil {
		t.Fatal(err)
	}
	check("kept for another")
	if _, err := d.Keep(here, session(2, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Keep(other, session(3, 1)); err != nil {
		t.Fatal(err)
	}
	check("kept for both")
	id, err := d.ID(here)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Path, id+promptSuffix), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	check("a prompt answer noted")
	if !d.Look(here).AnsweredPromptly || !d.Look(here).HasKept || d.Look(here).Elsewhere != 2 {
		t.Errorf("look %+v, want pending, prompt, 2 elsewhere", d.Look(here))
	}
	if n := d.NewlyWaitingIn(d.Look(here)); n != 2 {
		t.Errorf("told %d, want 2", n)
	}
	if n := d.NewlyWaiting(here); n != 0 {
		t.Errorf("told again by NewlyWaiting: %d, want 0 (the look told it)", n)
	}
}
