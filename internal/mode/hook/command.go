package hook

import (
	"strconv"
	"strings"
)

// quoting is how the shell that runs a hooks.json command reads it.
type quoting int

const (
	// posixQuoting: sh. The path Go-quoted when it holds a blank or a
	// quote.
	posixQuoting quoting = iota
	// windowsQuoting: cmd.exe. The path between double quotes when it
	// holds anything but letters, digits and - _ . : \ / (a blank, & ( )
	// and the like, which would be cmd.exe's), as is when it does not
	// (which PowerShell reads too). A Windows path holds no '"'; its
	// backslashes are the path's, never escapes.
	windowsQuoting
)

// commandFor is the hooks.json command that runs the hook of the
// cursor-otel at program, as q's shell reads it.
func commandFor(program string, q quoting) string {
	switch {
	case q == windowsQuoting && strings.IndexFunc(program, windowsSpecial) >= 0:
		return `"` + program + `" hook`
	case q == posixQuoting && strings.ContainsAny(program, " \t'\""):
		return strconv.Quote(program) + " hook"
	}
	return program + " hook"
}

func windowsSpecial(r rune) bool {
	alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	return !alnum && !strings.ContainsRune(`-_.:\/`, r)
}

// programOf is the program a command of commandFor's shape runs; false for
// any other command.
func programOf(command string, q quoting) (string, bool) {
	rest, ok := strings.CutSuffix(command, " hook")
	if !ok || rest == "" {
		return "", false
	}
	if !strings.HasPrefix(rest, `"`) {
		return rest, !strings.ContainsAny(rest, " \t\"")
	}
	if q == windowsQuoting {
		inner := rest[1:]
		program, ok := strings.CutSuffix(inner, `"`)
		return program, ok && program != "" && !strings.Contains(program, `"`)
	}
	program, err := strconv.Unquote(rest)
	return program, err == nil && program != ""
}

// programName is the file name of the program at path, as cursor-otel's
// builds are named: on Windows in lower case, without .exe.
func programName(path string, q quoting) string {
	if q == posixQuoting {
		return path[strings.LastIndexByte(path, '/')+1:]
	}
	name := strings.ToLower(path[strings.LastIndexAny(path, `:\/`)+1:])
	return strings.TrimSuffix(name, ".exe")
}
