package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// A file is written whole, its user's alone, with no temporary file
// left; a temporary file a killed writer left is stale once old.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	for _, body := range []string{"first", "second, longer"} {
		if err := Write(path, []byte(body)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != body {
			t.Fatalf("read %q, %v; want %q", b, err, body)
		}
	}
	if info, err := os.Stat(path); err != nil || runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", info.Mode(), err)
	}
	if err := os.WriteFile(filepath.Join(dir, TempPrefix+"killed"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	stale := 0
	for _, e := range entries {
		if Stale(e, time.Now().Add(2*time.Minute), time.Minute) {
			stale++
		}
		if Stale(e, time.Now(), time.Minute) {
			t.Errorf("%s stale at once", e.Name())
		}
	}
	if stale != 1 || len(entries) != 2 {
		t.Errorf("%d entries, %d stale; want the file and the killed writer's, stale", len(entries), stale)
	}
	if err := Write(filepath.Join(dir, "missing", "x"), nil); err == nil {
		t.Error("a write into a missing directory said nothing")
	}
}
