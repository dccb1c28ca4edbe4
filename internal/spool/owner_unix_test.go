//go:build unix

package spool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Another user's part (a root run's in a user's spool; here, as root,
// a part given to uid 65534) is neither read, sent, dropped at the bound
// nor deleted as damaged: it is left for its owner and counted.
func TestAnotherUsersPartsAreLeftAndCounted(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	d := Open(filepath.Join(t.TempDir(), "spool"), 0)
	for i := byte(1); i <= 2; i++ {
		if _, err := d.Keep(here, session(i, 3)); err != nil {
			t.Fatal(err)
		}
	}
	parts, _ := d.list()
	theirs := filepath.Join(d.Path, parts[0].name)
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Path, "deliver.lock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_ = os.Chown(filepath.Join(d.Path, "deliver.lock"), 65534, 65534)
	if err := os.Chown(filepath.Join(d.Path, parts[1].name), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if d.HasKept(here) {
		t.Error("another user's parts are pending for this one")
	}
	if err := os.Chown(filepath.Join(d.Path, parts[1].name), 0, 0); err != nil {
		t.Fatal(err)
	}
	if !d.HasKept(here) {
		t.Error("this user's part is not pending")
	}
	d.Max = 1 // nothing of this user's fits: the bound drops its own only
	var got sent
	r, err := d.Deliver(context.Background(), got.export(nil), false)
	if err != nil {
		t.Fatal(err)
	}
	if r.Foreign != 1 || r.Damaged != 0 {
		t.Errorf("delivery %+v; want the other user's session counted, nothing damaged", r)
	}
	if _, err := os.Stat(theirs); err != nil {
		t.Errorf("the other user's part is gone: %v", err)
	}
	f := d.Foreign()
	if f.UID != 65534 || f.Sessions != 1 || f.Parts != 1 || strings.Join(f.Files, ",") != "deliver.lock" {
		t.Errorf("foreign %+v; want uid 65534, 1 session in 1 part, deliver.lock", f)
	}
}
