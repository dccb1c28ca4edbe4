package hook

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The hooks.json command for each platform's shell, and the program read
// back from it: Windows paths with their blanks and backslashes kept.
func TestCommandQuoting(t *testing.T) {
	tests := []struct {
		q       quoting
		program string
		command string
		name    string // programName
	}{
		{windowsQuoting, `C:\Program Files\cursor-otel\cursor-otel.exe`, `"C:\Program Files\cursor-otel\cursor-otel.exe" hook`, "cursor-otel"},
		{windowsQuoting, `C:\Users\ada\AppData\Local\cursor-otel\cursor-otel.exe`, `C:\Users\ada\AppData\Local\cursor-otel\cursor-otel.exe hook`, "cursor-otel"},
		{windowsQuoting, `C:\Users\Ada Lovelace\bin\Cursor-Otel.EXE`, `"C:\Users\Ada Lovelace\bin\Cursor-Otel.EXE" hook`, "cursor-otel"},
		{windowsQuoting, `\\build01\tools\cursor-otel.exe`, `\\build01\tools\cursor-otel.exe hook`, "cursor-otel"},
		{windowsQuoting, `D:\R&D (x86)\cursor-otel.exe`, `"D:\R&D (x86)\cursor-otel.exe" hook`, "cursor-otel"},
		{windowsQuoting, `C:\tools\%USERNAME%\cursor-otel.exe`, `"C:\tools\%USERNAME%\cursor-otel.exe" hook`, "cursor-otel"},
		{windowsQuoting, `C:/tools/cursor-otel.exe`, `C:/tools/cursor-otel.exe hook`, "cursor-otel"},
		{windowsQuoting, `C:\tools\agent.exe`, `C:\tools\agent.exe hook`, "agent"},
		{posixQuoting, "/usr/local/bin/cursor-otel", "/usr/local/bin/cursor-otel hook", "cursor-otel"},
		{posixQuoting, "/Users/ada/My Tools/cursor-otel", `"/Users/ada/My Tools/cursor-otel" hook`, "cursor-otel"},
		{posixQuoting, `/opt/it's/cursor-otel`, `"/opt/it's/cursor-otel" hook`, "cursor-otel"},
		{posixQuoting, `/opt/a\b/cursor-otel`, `/opt/a\b/cursor-otel hook`, "cursor-otel"},
		{posixQuoting, "/opt/Cursor-Otel.exe", "/opt/Cursor-Otel.exe hook", "Cursor-Otel.exe"},
	}
	for _, tt := range tests {
		got := commandFor(tt.program, nil, tt.q)
		if got != tt.command {
			t.Errorf("commandFor(%q) = %s, want %s", tt.program, got, tt.command)
		}
		program, ok := programOf(got, tt.q)
		if !ok || program != tt.program {
			t.Errorf("programOf(%s) = %q, %v; want %q", got, program, ok, tt.program)
		}
		if name := programName(program, tt.q); name != tt.name {
			t.Errorf("programName(%q) = %q, want %q", program, name, tt.name)
		}
	}
}

// Commands of other shapes are not cursor-otel's hook.
func TestProgramOfOtherCommands(t *testing.T) {
	for _, q := range []quoting{posixQuoting, windowsQuoting} {
		for _, command := range []string{
			"", "hook", " hook", "cursor-otel", "cursor-otel hook --flush", `"" hook`, `"C:\a b\x.exe hook`,
			`"C:\a"b\x.exe" hook`, "cursor-otel  hook", "node hooks/x.js hook extra",
		} {
			if program, ok := programOf(command, q); ok {
				t.Errorf("quoting %d: programOf(%q) = %q, want none", q, command, program)
			}
		}
	}
}

// A command with flags reads back as written, whatever the values hold:
// blanks, quotes, a shell's special characters.
func TestCommandWithFlags(t *testing.T) {
	for _, tt := range []struct {
		q       quoting
		program string
		args    []string
		command string
	}{
		{posixQuoting, "/usr/local/bin/cursor-otel", []string{"--capture-content", "--summary-json=/home/ada/runs.jsonl"},
			"/usr/local/bin/cursor-otel hook --capture-content --summary-json=/home/ada/runs.jsonl"},
		{posixQuoting, "/Users/ada/My Tools/cursor-otel", []string{"--summary=/Users/ada/My Docs/it's $HOME;`x`.md"},
			`"/Users/ada/My Tools/cursor-otel" hook '--summary=/Users/ada/My Docs/it'\''s $HOME;` + "`x`" + `.md'`},
		{posixQuoting, "/opt/cursor-otel", []string{"--trace-url=http://jaeger:16686/trace/{trace_id}"},
			"/opt/cursor-otel hook '--trace-url=http://jaeger:16686/trace/{trace_id}'"},
		{posixQuoting, "/opt/cursor-otel", []string{"--summary="}, "/opt/cursor-otel hook --summary="},
		{windowsQuoting, `C:\Program Files\cursor-otel\cursor-otel.exe`, []string{"--capture-content", `--summary-json=C:\Users\Ada Lovelace\runs.jsonl`},
			`"C:\Program Files\cursor-otel\cursor-otel.exe" hook --capture-content "--summary-json=C:\Users\Ada Lovelace\runs.jsonl"`},
	} {
		got := commandFor(tt.program, tt.args, tt.q)
		if got != tt.command {
			t.Errorf("commandFor(%q, %q) = %s, want %s", tt.program, tt.args, got, tt.command)
		}
		program, args, ok := parseCommand(got, tt.q)
		if !ok || program != tt.program || !slices.Equal(args, tt.args) {
			t.Errorf("parseCommand(%s) = %q, %q, %v; want %q, %q", got, program, args, ok, tt.program, tt.args)
		}
	}
	for _, command := range []string{
		"/opt/cursor-otel hook --quiet", "/opt/cursor-otel hook --summary", "/opt/cursor-otel hook --capture-content ",
		"/opt/cursor-otel hook  --capture-content", "/opt/cursor-otel hook '--summary=x", `/opt/cursor-otel hook "--summary=x"`,
		"/opt/cursor-otel hooks --capture-content", "/opt/cursor-otel hook --capture-content extra",
	} {
		if program, args, ok := parseCommand(command, posixQuoting); ok {
			t.Errorf("parseCommand(%q) = %q, %q; want none", command, program, args)
		}
	}
	for _, a := range []string{"--summary=C:\\a\"b", "--summary=C:\\%TEMP%\\x.md"} {
		if checkArg(a, windowsQuoting) == nil {
			t.Errorf("%q is written for cmd.exe, which would read it otherwise", a)
		}
	}
	if checkArg("--summary=/a/b c/%x'y.md", posixQuoting) != nil {
		t.Errorf("sh reads any value between single quotes")
	}
}

// sh reads a command's arguments back as they were given.
func TestCommandArgsThroughSh(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sh quoting")
	}
	script := filepath.Join(t.TempDir(), "a dir", "print args")
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte("#!/bin/sh\nfor a; do printf '%s\\n' \"$a\"; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"--capture-content", "--summary=/a b/it's $HOME;`x` \\n.md", "--trace-url=http://j/{trace_id}?a=1&b=*"}
	out, err := exec.Command("sh", "-c", commandFor(script, args, posixQuoting)).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "hook\n" + strings.Join(args, "\n") + "\n"; string(out) != want {
		t.Errorf("sh gave %q, want %q", out, want)
	}
}
