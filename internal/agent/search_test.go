package agent

import (
	"io/fs"
	"strings"
	"testing"
	"time"
)

// fakeFS is a file system of paths, for a searcher's rules on any
// platform: each path is a file with its mode, or a directory.
type fakeFS struct {
	files   map[string]fs.FileMode
	windows bool // names match whatever their case and slashes
}

type fakeInfo struct {
	name string
	mode fs.FileMode
}

func (f fakeInfo) Name() string       { return f.name }
func (f fakeInfo) Size() int64        { return 1 }
func (f fakeInfo) Mode() fs.FileMode  { return f.mode }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return f.mode.IsDir() }
func (f fakeInfo) Sys() any           { return nil }

func (f fakeFS) stat(path string) (fs.FileInfo, error) {
	for p, mode := range f.files {
		slashes := strings.NewReplacer("/", `\`)
		if p == path || f.windows && strings.EqualFold(slashes.Replace(p), slashes.Replace(path)) {
			return fakeInfo{name: p, mode: mode}, nil
		}
	}
	return nil, &fs.PathError{Op: "stat", Path: path, Err: fs.ErrNotExist}
}

func windowsFS(pathExt string, files ...string) searcher {
	f := fakeFS{files: map[string]fs.FileMode{}, windows: true}
	for _, p := range files {
		mode := fs.FileMode(0o666)
		if strings.HasSuffix(p, `\`) {
			p, mode = strings.TrimSuffix(p, `\`), fs.ModeDir|0o777
		}
		f.files[p] = mode
	}
	return windowsSearcher(func(k string) string {
		if k == "PATHEXT" {
			return pathExt
		}
		return ""
	}, f.stat)
}

const cursorDir = `C:\Users\Ada Lovelace\AppData\Local\cursor-agent`

// The lookup Windows' shells make: PATHEXT's extensions in order in each
// directory of a ';' list (quoted or not), then a PowerShell shim.
func TestWindowsSearch(t *testing.T) {
	const defaultExt = ".COM;.EXE;.BAT;.CMD;.VBS;.VBE;.JS;.JSE;.WSF;.WSH;.MSC;.CPL"
	tests := []struct {
		name, pathExt, path string
		files               []string
		look                string
		skip                string // a file that is cursor-otel itself
		want                string // "" for not found
	}{
		{name: "a .cmd shim in Cursor's directory", pathExt: defaultExt,
			path:  `C:\Windows\system32;C:\Windows;` + cursorDir,
			files: []string{cursorDir + `\cursor-agent.cmd`, cursorDir + `\agent.cmd`},
			look:  "cursor-agent", want: cursorDir + `\cursor-agent.cmd`},
		{name: ".exe before .cmd, PATHEXT's order", pathExt: defaultExt, path: `C:\bin`,
			files: []string{`C:\bin\cursor-agent.cmd`, `C:\bin\cursor-agent.exe`},
			look:  "cursor-agent", want: `C:\bin\cursor-agent.exe`},
		{name: "an earlier directory first", pathExt: defaultExt, path: `C:\a;C:\b`,
			files: []string{`C:\b\cursor-agent.exe`, `C:\a\cursor-agent.bat`},
			look:  "cursor-agent", want: `C:\a\cursor-agent.bat`},
		{name: "a PowerShell shim, after PATHEXT's", pathExt: defaultExt, path: cursorDir,
			files: []string{cursorDir + `\cursor-agent.ps1`},
			look:  "cursor-agent", want: cursorDir + `\cursor-agent.ps1`},
		{name: ".cmd before .ps1 in one directory", pathExt: defaultExt, path: cursorDir,
			files: []string{cursorDir + `\cursor-agent.ps1`, cursorDir + `\cursor-agent.cmd`},
			look:  "cursor-agent", want: cursorDir + `\cursor-agent.cmd`},
		{name: "PATHEXT with .PS1 puts it where it says", pathExt: ".PS1;.EXE;.CMD", path: cursorDir,
			files: []string{cursorDir + `\cursor-agent.ps1`, cursorDir + `\cursor-agent.cmd`},
			look:  "cursor-agent", want: cursorDir + `\cursor-agent.ps1`},
		{name: "no PATHEXT: .COM;.EXE;.BAT;.CMD", pathExt: "", path: `C:\bin`,
			files: []string{`C:\bin\cursor-agent.cmd`},
			look:  "cursor-agent", want: `C:\bin\cursor-agent.cmd`},
		{name: "PATHEXT without .CMD", pathExt: ".EXE", path: `C:\bin`,
			files: []string{`C:\bin\cursor-agent.cmd`},
			look:  "cursor-agent", want: ""},
		{name: "PATHEXT in any case, entries without dots", pathExt: "exe;.Cmd;;", path: `C:\bin`,
			files: []string{`C:\bin\CURSOR-AGENT.CMD`},
			look:  "cursor-agent", want: `C:\bin\cursor-agent.cmd`},
		{name: "a quoted directory with a ';' in it", pathExt: defaultExt, path: `"C:\Program Files\x;y";C:\z`,
			files: []string{`C:\Program Files\x;y\cursor-agent.exe`, `C:\z\cursor-agent.exe`},
			look:  "cursor-agent", want: `C:\Program Files\x;y\cursor-agent.exe`},
		{name: "empty entries are skipped, not the current directory", pathExt: defaultExt, path: `;;C:\bin;`,
			files: []string{`cursor-agent.exe`, `\cursor-agent.exe`, `C:\bin\cursor-agent.exe`},
			look:  "cursor-agent", want: `C:\bin\cursor-agent.exe`},
		{name: "a directory with a trailing backslash", pathExt: defaultExt, path: `C:\bin\`,
			files: []string{`C:\bin\cursor-agent.exe`},
			look:  "cursor-agent", want: `C:\bin\cursor-agent.exe`},
		{name: "a drive's root", pathExt: defaultExt, path: `D:\`,
			files: []string{`D:\cursor-agent.exe`},
			look:  "cursor-agent", want: `D:\cursor-agent.exe`},
		{name: "a UNC share", pathExt: defaultExt, path: `\\build01\tools\bin`,
			files: []string{`\\build01\tools\bin\cursor-agent.exe`},
			look:  "cursor-agent", want: `\\build01\tools\bin\cursor-agent.exe`},
		{name: "forward slashes", pathExt: defaultExt, path: `C:/tools/bin/`,
			files: []string{`C:/tools/bin/cursor-agent.exe`},
			look:  "cursor-agent", want: `C:/tools/bin/cursor-agent.exe`},
		{name: "a directory named like the program is not it", pathExt: defaultExt, path: `C:\a;C:\b`,
			files: []string{`C:\a\cursor-agent.exe\`, `C:\b\cursor-agent.exe`},
			look:  "cursor-agent", want: `C:\b\cursor-agent.exe`},
		{name: "a name with its extension", pathExt: defaultExt, path: `C:\bin`,
			files: []string{`C:\bin\cursor-agent.exe`, `C:\bin\cursor-agent.cmd`},
			look:  "cursor-agent.cmd", want: `C:\bin\cursor-agent.cmd`},
		{name: "a dotted name without one of PATHEXT's", pathExt: defaultExt, path: `C:\bin`,
			files: []string{`C:\bin\cursor.agent.exe`},
			look:  "cursor.agent", want: `C:\bin\cursor.agent.exe`},
		{name: "the drop-in itself is skipped, the shim beside it found", pathExt: defaultExt,
			path:  `C:\tools;` + cursorDir,
			files: []string{`C:\tools\cursor-agent.exe`, cursorDir + `\cursor-agent.exe`},
			skip:  `C:\tools\cursor-agent.exe`,
			look:  "cursor-agent", want: cursorDir + `\cursor-agent.exe`},
		{name: "the drop-in skipped within one directory", pathExt: defaultExt, path: cursorDir,
			files: []string{cursorDir + `\cursor-agent.exe`, cursorDir + `\cursor-agent.cmd`},
			skip:  cursorDir + `\cursor-agent.exe`,
			look:  "cursor-agent", want: cursorDir + `\cursor-agent.cmd`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := windowsFS(tt.pathExt, tt.files...)
			skip := func(p string, _ fs.FileInfo) bool { return tt.skip != "" && strings.EqualFold(p, tt.skip) }
			got, ok := s.look(tt.look, tt.path, skip)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("look(%q) = %q, %v; want %q", tt.look, got, ok, tt.want)
			}
		})
	}
}

// An explicit --agent on Windows: a path, with or without its extension,
// or a name on PATH; Names searched in order otherwise.
func TestWindowsFind(t *testing.T) {
	s := windowsFS(".EXE;.CMD", cursorDir+`\cursor-agent.cmd`, `C:\other\agent.exe`, `D:\x\agent.ps1`)
	me := &self{}
	tests := []struct {
		explicit, path, want, err string
	}{
		{"", `C:\other;` + cursorDir, cursorDir + `\cursor-agent.cmd`, ""},
		{"", `C:\other`, `C:\other\agent.exe`, ""},
		{cursorDir + `\cursor-agent`, "", cursorDir + `\cursor-agent.cmd`, ""},
		{cursorDir + `\cursor-agent.cmd`, "", cursorDir + `\cursor-agent.cmd`, ""},
		{`D:\x\agent`, "", `D:\x\agent.ps1`, ""},
		{`d:/x/AGENT`, "", `d:/x/AGENT.ps1`, ""},
		{"agent", `C:\other`, `C:\other\agent.exe`, ""},
		{`C:\nowhere\cursor-agent`, `C:\other`, "", `C:\nowhere\cursor-agent: file does not exist`},
		{"cursor-agent", `C:\other`, "", "cursor-agent not found on PATH"},
		{"", `C:\nowhere`, "", "no cursor-agent or agent on PATH"},
	}
	for _, tt := range tests {
		got, err := s.find(tt.explicit, tt.path, me)
		if got != tt.want || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("find(%q, %q) = %q, %v; want %q, %q", tt.explicit, tt.path, got, err, tt.want, tt.err)
		}
	}
}

// The same searcher with unix's rules: ':' lists, an empty entry the
// current directory, execute bits.
func TestUnixSearch(t *testing.T) {
	f := fakeFS{files: map[string]fs.FileMode{
		"/opt/a/cursor-agent": 0o644, "/opt/b/cursor-agent": 0o755, "cursor-agent.exe": 0o755,
		"./agent": 0o755, "/opt/c/cursor-agent": fs.ModeDir | 0o755,
	}}
	s := searcher{stat: f.stat, runnable: func(_ string, info fs.FileInfo) bool {
		return !info.IsDir() && info.Mode()&0o111 != 0
	}}
	tests := []struct{ name, path, want string }{
		{"cursor-agent", "/opt/a:/opt/c:/opt/b", "/opt/b/cursor-agent"},
		{"agent", "/opt/a::/opt/b", "./agent"},
		{"cursor-agent", "/opt/a", ""},
	}
	for _, tt := range tests {
		got, _ := s.look(tt.name, tt.path, nil)
		if got != tt.want {
			t.Errorf("look(%q, %q) = %q, want %q", tt.name, tt.path, got, tt.want)
		}
	}
	if s.hasDir(`C:\x`) || !s.hasDir("./x") {
		t.Error("unix: only '/' makes a path")
	}
}

// The name cursor-otel was run by decides whether it is the drop-in.
func TestProgramName(t *testing.T) {
	win := windowsFS("")
	unix := searcher{}
	tests := []struct {
		s           searcher
		argv0, want string
	}{
		{win, `C:\Program Files\cursor-otel\cursor-agent.exe`, "cursor-agent"},
		{win, `C:\tools\CURSOR-AGENT.EXE`, "cursor-agent"},
		{win, `cursor-agent`, "cursor-agent"},
		{win, `agent.exe`, "agent"},
		{win, `\\build01\tools\Agent.Exe`, "agent"},
		{win, `C:/tools/cursor-otel.exe`, "cursor-otel"},
		{win, `D:agent.exe`, "agent"},
		{win, `.exe`, ".exe"},
		{unix, "/usr/local/bin/cursor-agent", "cursor-agent"},
		{unix, "agent", "agent"},
		{unix, "/opt/Cursor-Agent.exe", "Cursor-Agent.exe"},
	}
	for _, tt := range tests {
		if got := tt.s.programName(tt.argv0); got != tt.want {
			t.Errorf("programName(%q) = %q, want %q", tt.argv0, got, tt.want)
		}
	}
}
