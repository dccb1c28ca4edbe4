package hook

import (
	"fmt"
	"slices"
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

// CommandFlags are the flags a hooks.json command may give the hook, as
// hooks install writes them: --capture-content as it is or with =VALUE,
// the others always --NAME=VALUE. A command with any other argument is
// not cursor-otel's.
var CommandFlags = []string{"--capture-content", "--summary", "--summary-json", "--trace-url"}

// commandFor is the hooks.json command that runs the hook of the
// cursor-otel at program with args (of CommandFlags), as q's shell reads
// it.
func commandFor(program string, args []string, q quoting) string {
	var b strings.Builder
	switch {
	case q == windowsQuoting && strings.IndexFunc(program, windowsSpecial) >= 0:
		b.WriteString(`"` + program + `"`)
	case q == posixQuoting && strings.ContainsAny(program, " \t'\""):
		b.WriteString(strconv.Quote(program))
	default:
		b.WriteString(program)
	}
	b.WriteString(" hook")
	for _, a := range args {
		b.WriteString(" " + quoteArg(a, q))
	}
	return b.String()
}

// quoteArg is a as q's shell reads it back: between single quotes for
// sh (where nothing is special), between double quotes for cmd.exe
// (checkArg keeps out what is special there too).
func quoteArg(a string, q quoting) string {
	if q == windowsQuoting {
		if a == "" || strings.IndexFunc(a, windowsSpecial) >= 0 {
			return `"` + a + `"`
		}
		return a
	}
	if a != "" && strings.IndexFunc(a, posixSpecial) < 0 {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

func posixSpecial(r rune) bool {
	alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	return !alnum && !strings.ContainsRune("-_.:/=,@+", r)
}

func windowsSpecial(r rune) bool {
	alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	return !alnum && !strings.ContainsRune(`-_.:\/`, r)
}

// checkArg says why a cannot be written into a command for q's shell,
// nil when it can: cmd.exe reads % and " even between double quotes, and
// neither shell keeps a line break.
func checkArg(a string, q quoting) error {
	if strings.ContainsAny(a, "\r\n\x00") || q == windowsQuoting && strings.ContainsAny(a, `"%`) {
		return fmt.Errorf("%q cannot be written into a hooks.json command here", a)
	}
	return nil
}

// programOf is the program a command of commandFor's shape runs; false for
// any other command.
func programOf(command string, q quoting) (string, bool) {
	program, _, ok := parseCommand(command, q)
	return program, ok
}

// parseCommand reads a command of commandFor's shape back: its program
// and its arguments. ok is false for any other command.
func parseCommand(command string, q quoting) (program string, args []string, ok bool) {
	rest := command
	switch {
	case strings.HasPrefix(rest, `"`) && q == windowsQuoting:
		end := strings.IndexByte(rest[1:], '"')
		if end < 0 {
			return "", nil, false
		}
		program, rest = rest[1:1+end], rest[2+end:]
	case strings.HasPrefix(rest, `"`):
		quoted, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return "", nil, false
		}
		program, _ = strconv.Unquote(quoted)
		rest = rest[len(quoted):]
	default:
		end := strings.IndexByte(rest, ' ')
		if end < 0 {
			return "", nil, false
		}
		program, rest = rest[:end], rest[end:]
		if strings.ContainsAny(program, "\t\"") {
			return "", nil, false
		}
	}
	if program == "" || strings.Contains(program, `"`) && q == windowsQuoting {
		return "", nil, false
	}
	if rest == " hook" {
		return program, nil, true
	}
	rest, found := strings.CutPrefix(rest, " hook ")
	if !found {
		return "", nil, false
	}
	args, ok = splitArgs(rest, q)
	for _, a := range args {
		flag, _, joined := strings.Cut(a, "=")
		if !slices.Contains(CommandFlags, flag) || !joined && flag != "--capture-content" {
			return "", nil, false
		}
	}
	return program, args, ok
}

// splitArgs reads arguments as quoteArg writes them, one blank apart:
// for sh, quoted parts between single quotes and \ escaping one byte; for
// cmd.exe, quoted parts between double quotes.
func splitArgs(s string, q quoting) ([]string, bool) {
	quote := byte('\'')
	if q == windowsQuoting {
		quote = '"'
	}
	var args []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ':
			if !inWord {
				return nil, false
			}
			args, inWord = append(args, word.String()), false
			word.Reset()
			i++
		case c == quote:
			end := strings.IndexByte(s[i+1:], quote)
			if end < 0 {
				return nil, false
			}
			word.WriteString(s[i+1 : i+1+end])
			i, inWord = i+end+2, true
		case c == '\\' && q == posixQuoting:
			if i+1 >= len(s) {
				return nil, false
			}
			word.WriteByte(s[i+1])
			i, inWord = i+2, true
		case c == '"' || c == '\'':
			return nil, false // never written unquoted
		default:
			word.WriteByte(c)
			i, inWord = i+1, true
		}
	}
	if !inWord {
		return nil, false
	}
	return append(args, word.String()), true
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
