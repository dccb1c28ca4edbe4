package hook

import "testing"

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
		got := commandFor(tt.program, tt.q)
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
