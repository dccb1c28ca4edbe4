package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const theirs = `{
    "version": 1,
    "hooks": {
        "afterFileEdit": [ { "command": "./hooks/format.sh" } ],
        "beforeShellExecution": [ { "command": "./hooks/guard.sh", "timeout": 5 } ]
    },
    "note": "kept as written"
}
`

// Install adds cursor-otel's entries beside the user's, twice is once,
// and Uninstall gives the file back byte for byte; a file that was not
// there is not there after.
func TestInstallRoundTrip(t *testing.T) {
	for _, original := range []string{theirs, ""} {
		dir := t.TempDir()
		path := filepath.Join(dir, ".cursor", "hooks.json")
		if original != "" {
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(original), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		changed, err := Install(path, Program{Path: "/opt/cursor otel/cursor-otel"})
		if err != nil || !changed {
			t.Fatalf("Install: %v, changed %v", err, changed)
		}
		once, _ := os.ReadFile(path)
		var f struct {
			Version int
			Hooks   map[string][]map[string]any
			Note    string
		}
		if err := json.Unmarshal(once, &f); err != nil {
			t.Fatalf("installed file is not JSON: %v", err)
		}
		for _, e := range Events {
			last := f.Hooks[e][len(f.Hooks[e])-1]
			if last["command"] != `"/opt/cursor otel/cursor-otel" hook` {
				t.Errorf("%s: %v", e, f.Hooks[e])
			}
		}
		if original != "" && (len(f.Hooks["afterFileEdit"]) != 1 || len(f.Hooks["beforeShellExecution"]) != 1 || f.Note != "kept as written" || f.Version != 1) {
			t.Errorf("the user's hooks were not kept: %s", once)
		}
		if changed, err := Install(path, Program{Path: "/opt/cursor otel/cursor-otel"}); err != nil || changed {
			t.Errorf("second Install: %v, changed %v", err, changed)
		}
		if twice, _ := os.ReadFile(path); !bytes.Equal(once, twice) {
			t.Errorf("installing twice changed the file")
		}
		if changed, err := Uninstall(path, Program{Path: "/usr/local/bin/cursor-otel"}); err != nil || !changed {
			t.Fatalf("Uninstall: %v, changed %v", err, changed)
		}
		after, err := os.ReadFile(path)
		switch {
		case original == "" && err == nil:
			t.Errorf("a file that was not there is: %s", after)
		case original != "" && string(after) != original:
			t.Errorf("uninstall gave back\n%s\nwant\n%s", after, original)
		}
		if _, err := os.Stat(path + backupSuffix); err == nil {
			t.Errorf("the backup is left behind")
		}
	}
}

// A user who changed hooks.json after Install keeps the change; only
// cursor-otel's entries go, whichever cursor-otel wrote them.
func TestUninstallKeepsLaterChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hooks.json")
	os.WriteFile(path, []byte(theirs), 0o644)
	if _, err := Install(path, Program{Path: "/usr/local/bin/cursor-otel"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	edited := strings.Replace(string(b), `"./hooks/format.sh"`, `"./hooks/format.sh --fix"`, 1)
	os.WriteFile(path, []byte(edited), 0o644)
	if _, err := Install(path, Program{Path: "/home/u/go/bin/cursor-otel"}); err != nil { // another build: replaces, adds nothing
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if n := strings.Count(string(b), "cursor-otel hook"); n != len(Events) {
		t.Errorf("%d cursor-otel entries after a second build's install, want %d", n, len(Events))
	}
	if _, err := Uninstall(path, Program{Path: "/usr/local/bin/cursor-otel"}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if strings.Contains(string(b), "cursor-otel") || !strings.Contains(string(b), "format.sh --fix") || !strings.Contains(string(b), "guard.sh") {
		t.Errorf("after uninstall:\n%s", b)
	}
}

// Uninstall where nothing is installed leaves the user's file byte for
// byte, in their layout, and says it changed nothing.
func TestUninstallWithNothingInstalled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hooks.json")
	os.WriteFile(path, []byte(theirs), 0o644)
	if changed, err := Uninstall(path, Program{Path: "/usr/local/bin/cursor-otel"}); err != nil || changed {
		t.Errorf("Uninstall: %v, changed %v", err, changed)
	}
	if b, _ := os.ReadFile(path); string(b) != theirs {
		t.Errorf("the file was rewritten:\n%s", b)
	}
}

// A hooks.json that is not JSON is said, and left alone.
func TestInstallRefusesBrokenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hooks.json")
	os.WriteFile(path, []byte("{not json"), 0o644)
	if _, err := Install(path, Program{Path: "/bin/cursor-otel"}); err == nil || !strings.Contains(err.Error(), "is not JSON") {
		t.Errorf("Install: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{not json" {
		t.Errorf("the file was changed: %q", b)
	}
}

// cursor-otel's entries are known by what they run: a program named
// cursor-otel, a file that is cursor-otel under any name, or a path
// Command wrote whose file is gone; never a user's own program.
func TestOwns(t *testing.T) {
	dir := t.TempDir()
	file := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(name), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	me, copyOfMe, theirs := file("co"), file("co-1.2"), file("audit")
	spaced := filepath.Join(dir, "my tools", "co")
	os.MkdirAll(filepath.Dir(spaced), 0o755)
	os.WriteFile(spaced, nil, 0o755)
	gone := filepath.Join(dir, "moved-away", "co")
	p := Program{Path: me, Is: func(path string) bool { return path == me || path == copyOfMe || path == spaced }}
	for _, tt := range []struct {
		command string
		ours    bool
	}{
		{Command(me), true},
		{Command(copyOfMe), true},               // another build, another name
		{Command(spaced), true},                 // quoted
		{Command(gone), true},                   // moved, upgraded away, deleted
		{Command("/usr/bin/cursor-otel"), true}, // by its name, as before
		{"cursor-otel hook", true},
		{Command(filepath.Join("tools", "cursor-otel.exe")), true},
		{Command(theirs), false}, // there, and another program
		{"./hooks/audit hook", false},
		{"hooks/gone hook", false},      // relative: where it is cannot be known
		{me + " hook --verbose", false}, // not the shape cursor-otel writes
		{me + " hook; rm -rf /", false},
		{me, false},
		{gone + " flush", false},
		{`"` + gone + `" hook`, true},
		{`"unterminated hook`, false},
		{`"" hook`, false},
		{"", false},
	} {
		if got := p.owns(tt.command); got != tt.ours {
			t.Errorf("owns(%q) = %v, want %v", tt.command, got, tt.ours)
		}
	}
}

// Installed with flags, then again with others, the entries carry the
// last flags, once each; Uninstall gives the user's file back.
func TestInstallWithFlags(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".cursor", "hooks.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	first := Program{Path: "/opt/cursor-otel", Args: []string{"--capture-content", "--summary-json=/home/ada/runs.jsonl"}}
	second := Program{Path: "/opt/cursor-otel", Args: []string{"--summary=/home/ada/My Runs/report.md"}}
	for _, p := range []Program{first, second} {
		if changed, err := Install(path, p); err != nil || !changed {
			t.Fatalf("Install %q: %v, changed %v", p.Args, err, changed)
		}
	}
	b, _ := os.ReadFile(path)
	// The host's quoting: sh's single quotes, or cmd.exe's double quotes on Windows.
	want, _ := json.Marshal(second.Command())
	if n := strings.Count(string(b), string(want)); n != len(Events) || strings.Contains(string(b), "--capture-content") {
		t.Errorf("%d entries with the last flags, want %d and no other of cursor-otel's: %s", n, len(Events), b)
	}
	if changed, err := Uninstall(path, Program{Path: "/opt/cursor-otel"}); err != nil || !changed {
		t.Fatalf("Uninstall: %v, changed %v", err, changed)
	}
	if b, _ := os.ReadFile(path); string(b) != theirs {
		t.Errorf("Uninstall left %s, want the user's file back", b)
	}
}

// Command is the hooks.json command that runs the hook of the cursor-otel
// at self, quoted for the shell Cursor runs it with here.
func Command(self string, args ...string) string { return Program{Path: self, Args: args}.Command() }
