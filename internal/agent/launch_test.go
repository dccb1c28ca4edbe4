package agent

import (
	"errors"
	"github.com/cursor-otel/cursor-otel/internal/winargs"
	"strings"
	"testing"
)

func windowsEnv(k string) string {
	return map[string]string{"SystemRoot": `C:\WINDOWS`, "ComSpec": `C:\WINDOWS\system32\cmd.exe`}[k]
}

// How each kind of program is run on Windows, and the command line it is
// given.
func TestWindowsLaunch(t *testing.T) {
	const ps = `C:\WINDOWS\System32\WindowsPowerShell\v1.0\powershell.exe`
	tests := []struct {
		name, path string
		args       []string
		want       launch
		err        error
	}{
		{"an .exe runs as it is", cursorDir + `\cursor-agent.exe`, []string{"-p", "hi there"},
			launch{app: cursorDir + `\cursor-agent.exe`}, nil},
		{"no extension runs as it is", `C:\bin\cursor-agent`, nil, launch{app: `C:\bin\cursor-agent`}, nil},
		{"a dotted directory is no extension", `C:\v1.2\cursor-agent`, nil, launch{app: `C:\v1.2\cursor-agent`}, nil},
		{"a .cmd through cmd.exe", cursorDir + `\cursor-agent.CMD`, []string{"-p", "--output-format", "stream-json", "fix the bug"},
			launch{app: `C:\WINDOWS\system32\cmd.exe`, cmdLine: `cmd.exe /e:ON /v:OFF /d /c ""` + cursorDir + `\cursor-agent.CMD" -p --output-format stream-json "fix the bug""`}, nil},
		{"cmd.exe's metacharacters quoted", `C:\a\agent.bat`, []string{"a&b", "x|y", "<in>", "^", "(x)", "!x!", "a,b", "a;b", "a=b"},
			launch{app: `C:\WINDOWS\system32\cmd.exe`, cmdLine: `cmd.exe /e:ON /v:OFF /d /c ""C:\a\agent.bat" "a&b" "x|y" "<in>" "^" "(x)" "!x!" "a,b" "a;b" "a=b""`}, nil},
		{"no variable expanded", `C:\a\agent.cmd`, []string{"%PATH%", "100%"},
			launch{app: `C:\WINDOWS\system32\cmd.exe`, cmdLine: `cmd.exe /e:ON /v:OFF /d /c ""C:\a\agent.cmd" "%%cd:~,%PATH%%cd:~,%" "100%%cd:~,%""`}, nil},
		{"quotes doubled, backslashes before them too", `C:\a\agent.cmd`, []string{`say "hi"`, `C:\dir\`, `a\"b`, ""},
			launch{app: `C:\WINDOWS\system32\cmd.exe`, cmdLine: `cmd.exe /e:ON /v:OFF /d /c ""C:\a\agent.cmd" "say ""hi""" "C:\dir\\" "a\\""b" """`}, nil},
		{"paths and plain words unquoted", `C:\a\agent.cmd`, []string{`C:\Users\me\proj`, "--model=gpt-5", "a.b/c:d"},
			launch{app: `C:\WINDOWS\system32\cmd.exe`, cmdLine: `cmd.exe /e:ON /v:OFF /d /c ""C:\a\agent.cmd" C:\Users\me\proj "--model=gpt-5" a.b/c:d"`}, nil},
		{"a line break cannot pass through cmd.exe", `C:\a\agent.cmd`, []string{"-p", "line one\r\nline two"}, launch{}, errLineBreak},
		{"no ComSpec: SystemRoot's cmd.exe", `C:\a\agent.cmd`, nil, launch{}, nil},
		{"a .ps1 through powershell", cursorDir + `\cursor-agent.ps1`, []string{"-p", `say "hi"`, "line one\nline two", ""},
			launch{app: ps, cmdLine: ps + ` -NoProfile -ExecutionPolicy Bypass -File "` + cursorDir + `\cursor-agent.ps1" -p "say \"hi\"" "line one` + "\n" + `line two" ""`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := windowsEnv
			if strings.HasPrefix(tt.name, "no ComSpec") {
				env = func(k string) string {
					if k == "ComSpec" {
						return ""
					}
					return windowsEnv(k)
				}
				tt.want = launch{app: `C:\WINDOWS\System32\cmd.exe`, cmdLine: `cmd.exe /e:ON /v:OFF /d /c ""C:\a\agent.cmd""`}
			}
			got, err := windowsLaunch(tt.path, tt.args, env)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if err == nil && got != tt.want {
				t.Errorf("got\n  %+v\nwant\n  %+v", got, tt.want)
			}
		})
	}
}

// Any argument comes back whole from the line Go's rules make of it.
func FuzzWindowsArgs(f *testing.F) {
	for _, s := range []string{"", "a b", `a"b`, `a\`, `a\\"b c\`, "\t", `\\server\share\x y\`, `C:\Program Files\`} {
		f.Add(s, "next")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.ContainsRune(a+b, 0) {
			return
		}
		line := string(appendArg(append(appendArg(nil, a), ' '), b))
		if got := winargs.Split(line); len(got) != 2 || got[0] != a || got[1] != b {
			t.Fatalf("%q %q -> %s -> %q", a, b, line, got)
		}
	})
}

// Whatever an argument holds, cmd.exe sees no command, redirection,
// escape or variable in the batch line: those characters only between
// quotes (cmd.exe toggles at every '"'), and every '%' in the
// %%cd:~,% that keeps it literal. Read back as the batch file's program
// reads its command line, each argument is what was given.
func FuzzBatchArgs(f *testing.F) {
	for _, s := range []string{"", "a&b", `"&calc"`, "%PATH%", `x\"&y`, "^&", `\`, "a b\\", "!x!"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, a string) {
		line, err := batchLine(`C:\a\agent.cmd`, []string{a, "end"})
		if err != nil {
			if !strings.ContainsAny(a, "\r\n\x00") {
				t.Fatalf("%q: %v", a, err)
			}
			return
		}
		rest, ok := strings.CutPrefix(line, `cmd.exe /e:ON /v:OFF /d /c "`)
		if !ok || !strings.HasSuffix(rest, `"`) {
			t.Fatalf("%s: not cmd /c \"…\"", line)
		}
		rest = rest[:len(rest)-1] // cmd.exe strips the first and last quote
		quoted := false
		for i := 0; i < len(rest); i++ {
			switch c := rest[i]; {
			case c == '"':
				quoted = !quoted
			case c == '%':
				if !strings.HasPrefix(rest[i:], "%%cd:~,%") {
					t.Fatalf("%q -> %s: a bare %%", a, line)
				}
				i += len("%%cd:~,%") - 1
			case strings.IndexByte("&|<>^()!", c) >= 0 && !quoted:
				t.Fatalf("%q -> %s: %c outside quotes", a, line, c)
			}
		}
		if quoted {
			t.Fatalf("%q -> %s: a quote left open", a, line)
		}
		args := winargs.Split(strings.ReplaceAll(rest, "%%cd:~,%", "%"))
		if len(args) != 3 || args[1] != a || args[2] != "end" {
			t.Fatalf("%q -> %s -> %q", a, line, args)
		}
	})
}
