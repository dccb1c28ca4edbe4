//go:build unix

package agent

import (
	"path/filepath"
	"testing"
)

// Self.Is knows cursor-otel by what a file is, whatever it is called: the
// file itself, a renamed copy, another build; not another program, not a
// file that is gone.
func TestSelfIs(t *testing.T) {
	me := testSelf(t)
	dir := t.TempDir()
	renamed := filepath.Join(dir, "co")
	copyFile(t, me.Path, renamed, nil)
	upgraded := filepath.Join(dir, "co-next")
	copyFile(t, me.Path, upgraded, []byte("another build"))
	script := filepath.Join(dir, "audit")
	writeExecutable(t, script, "audit")
	for _, tt := range []struct {
		path string
		is   bool
	}{
		{me.Path, true},
		{renamed, true},
		{upgraded, true},
		{script, false},
		{filepath.Join(dir, "gone"), false},
		{dir, false},
	} {
		if got := me.Is(tt.path); got != tt.is {
			t.Errorf("Is(%s) = %v, want %v", filepath.Base(tt.path), got, tt.is)
		}
	}
	if (Self{Path: me.Path}).Is(renamed) {
		t.Errorf("a copy is known without the program's name")
	}
}
