package agent

import (
	"errors"
	"fmt"
	"strings"
)

// launch is how Windows runs a program found on PATH: an .exe (or .com)
// as it is; a batch file (.cmd, .bat) through cmd.exe, quoted by cmd.exe's
// rules; a PowerShell script (.ps1) through powershell.exe. Windows hands
// a program one command line, which it splits itself: cmdLine is that
// line, "" for Go's own quoting (CommandLineToArgvW's rules).
type launch struct {
	app     string // the program CreateProcess starts
	cmdLine string
}

// errLineBreak: cmd.exe ends a command at a line break, so a batch file
// cannot be given an argument that holds one.
var errLineBreak = errors.New("cmd.exe cannot pass an argument with a line break to a batch file; run cursor-agent.exe or its .ps1 (--agent / CURSOR_OTEL_AGENT)")

// windowsLaunch says how to run path with args. getenv finds cmd.exe
// (ComSpec, else SystemRoot's) and powershell.exe (SystemRoot's) where
// Windows keeps them, never a program of that name on PATH.
func windowsLaunch(path string, args []string, getenv func(string) string) (launch, error) {
	system := getenv("SystemRoot")
	if system == "" {
		system = `C:\Windows`
	}
	switch strings.ToLower(windowsExt(path)) {
	case ".cmd", ".bat":
		comspec := getenv("ComSpec")
		if comspec == "" {
			comspec = system + `\System32\cmd.exe`
		}
		line, err := batchLine(path, args)
		return launch{app: comspec, cmdLine: line}, err
	case ".ps1":
		ps := system + `\System32\WindowsPowerShell\v1.0\powershell.exe`
		line := appendArg(nil, ps)
		line = append(line, " -NoProfile -ExecutionPolicy Bypass -File "...)
		line = appendArg(line, path)
		for _, a := range args {
			line = appendArg(append(line, ' '), a)
		}
		return launch{app: ps, cmdLine: string(line)}, nil
	default:
		return launch{app: path}, nil
	}
}

// appendArg appends s quoted as CommandLineToArgvW (and Go's os/exec, and
// the C runtime) read it back: quoted when it holds a blank or is empty,
// a '"' escaped, and the backslashes before one (or before the closing
// quote) doubled.
func appendArg(b []byte, s string) []byte {
	if s != "" && !strings.ContainsAny(s, " \t\"\\") {
		return append(b, s...)
	}
	quote := s == "" || strings.ContainsAny(s, " \t")
	if quote {
		b = append(b, '"')
	}
	slashes := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			slashes++
		case '"':
			b = append(backslashes(b, slashes), '\\')
			slashes = 0
		default:
			slashes = 0
		}
		b = append(b, c)
	}
	if quote {
		b = append(backslashes(b, slashes), '"')
	}
	return b
}

// backslashes appends n more backslashes to b: the backslashes before a
// quote are doubled, so that none of them escapes it.
func backslashes(b []byte, n int) []byte {
	for range n {
		b = append(b, '\\')
	}
	return b
}

// batchLine is the command line that runs a batch file with args through
// cmd.exe, each argument reaching the batch file's %1, %2, … as given,
// and none of them read by cmd.exe as a command (&, |, <, >), a variable
// (%PATH%) or an escape (^). cmd.exe /c strips the first and the last
// quote of what follows it; the batch file's path and each argument that
// needs it are quoted within (a '"' doubled, the backslashes before a
// quote doubled), and a '%' is broken up (%%cd:~,%: an empty substring of
// %cd%) so that no %NAME% is expanded. The same rules as Rust's standard
// library, after CVE-2024-24576.
func batchLine(path string, args []string) (string, error) {
	if strings.ContainsAny(path, "\"\r\n\x00") || strings.HasSuffix(path, `\`) {
		return "", fmt.Errorf("%q cannot be run through cmd.exe", path)
	}
	b := []byte(`cmd.exe /e:ON /v:OFF /d /c ""`)
	b = append(b, path...)
	b = append(b, '"')
	for _, a := range args {
		if strings.ContainsAny(a, "\r\n") {
			return "", errLineBreak
		}
		if strings.ContainsRune(a, 0) {
			return "", errors.New("an argument holds a NUL byte")
		}
		b = appendBatchArg(append(b, ' '), a)
	}
	return string(append(b, '"')), nil
}

// batchSafe are the ASCII characters other than letters and digits that
// need no quoting for cmd.exe.
const batchSafe = `#$*+-./:?@\_`

func appendBatchArg(b []byte, s string) []byte {
	quote := s == "" || strings.HasSuffix(s, `\`)
	for _, c := range s {
		ascii := c < 0x80
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if ascii && !alnum && !strings.ContainsRune(batchSafe, c) || c < 0x20 || c == 0x7f || c >= 0x80 && c < 0xa0 {
			quote = true
		}
	}
	if quote {
		b = append(b, '"')
	}
	slashes := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' {
			slashes++
			b = append(b, c)
			continue
		}
		switch c {
		case '"':
			b = append(backslashes(b, slashes), '"') // a quote doubled is one quote
		case '%':
			b = append(b, "%%cd:~,"...)
		}
		slashes = 0
		b = append(b, c)
	}
	if quote {
		b = append(backslashes(b, slashes), '"')
	}
	return b
}

// WindowsArg is s quoted as a Windows program reads its command line back
// (CommandLineToArgvW): as is when it holds no blank, quote or backslash.
func WindowsArg(s string) string {
	return string(appendArg(nil, s))
}
