//go:build unix

package agent

import (
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// writeExecutable writes a shell script that says its own name.
func writeExecutable(t *testing.T, path, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho "+name+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// testSelf is this test binary as Find sees cursor-otel: its file, and the
// main package every build of it records.
func testSelf(t *testing.T) Self {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build information in the test binary")
	}
	return Self{Path: exe, Program: bi.Path}
}

func copyFile(t *testing.T, from, to string, extra []byte) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, append(b, extra...), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	me := testSelf(t)
	realAgent := filepath.Join(dir, "real", "cursor-agent")
	writeExecutable(t, realAgent, "the real agent")
	otherAgent := filepath.Join(dir, "other", "agent")
	writeExecutable(t, otherAgent, "agent")

	in := func(sub string) string { return filepath.Join(dir, sub, "cursor-agent") }
	os.MkdirAll(filepath.Join(dir, "symlink"), 0o755)
	if err := os.Symlink(me.Path, in("symlink")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "hardlink"), 0o755)
	if err := os.Link(me.Path, in("hardlink")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	copyFile(t, me.Path, in("copy"), nil)
	copyFile(t, me.Path, in("other-version"), []byte("another build")) // other bytes, the same program
	os.MkdirAll(filepath.Join(dir, "noexec"), 0o755)
	os.WriteFile(in("noexec"), []byte("x"), 0o644)

	path := func(dirs ...string) string {
		for i, d := range dirs {
			dirs[i] = filepath.Join(dir, d)
		}
		return strings.Join(dirs, string(os.PathListSeparator))
	}
	tests := []struct {
		name, explicit, path, want string
	}{
		{"first on PATH", "", path("real"), realAgent},
		{"cursor-agent before agent", "", path("other", "real"), realAgent},
		{"agent when there is no cursor-agent", "", path("other"), otherAgent},
		{"skips a symlink to itself", "", path("symlink", "real"), realAgent},
		{"skips a hard link to itself", "", path("hardlink", "real"), realAgent},
		{"skips a copy of itself", "", path("copy", "real"), realAgent},
		{"skips another build of cursor-otel", "", path("other-version", "real"), realAgent},
		{"skips what is not executable", "", path("noexec", "real"), realAgent},
		{"explicit path", otherAgent, path("real"), otherAgent},
		{"explicit name on PATH", "agent", path("other"), otherAgent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Find(tt.explicit, tt.path, me)
			if err != nil || got != tt.want {
				t.Errorf("Find = %q, %v; want %q", got, err, tt.want)
			}
		})
	}

	t.Run("not found names what was searched", func(t *testing.T) {
		_, err := Find("", path("symlink", "copy", "other-version"), me)
		var nf *NotFoundError
		if !errors.As(err, &nf) || !strings.Contains(err.Error(), "no cursor-agent or agent on PATH") {
			t.Errorf("err = %v, want a NotFoundError naming cursor-agent and agent", err)
		}
	})
	t.Run("explicit path that does not exist", func(t *testing.T) {
		_, err := Find(filepath.Join(dir, "nope"), "", me)
		var nf *NotFoundError
		if !errors.As(err, &nf) || !strings.Contains(err.Error(), filepath.Join(dir, "nope")) {
			t.Errorf("err = %v, want a NotFoundError naming the path", err)
		}
	})
	// CURSOR_OTEL_AGENT naming the drop-in link, or another build: a
	// chain of cursor-otels, refused.
	for _, explicit := range []string{in("symlink"), in("other-version"), "cursor-agent"} {
		t.Run("explicit cursor-otel "+filepath.Base(filepath.Dir(explicit)), func(t *testing.T) {
			_, err := Find(explicit, path("symlink"), me)
			var nf *NotFoundError
			if !errors.As(err, &nf) || !strings.Contains(err.Error(), "which is cursor-otel itself") {
				t.Errorf("err = %v, want a refusal", err)
			}
		})
	}
}
