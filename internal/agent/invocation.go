// Package agent runs cursor-agent as if nothing stood between it and the
// user: it finds the program, reads its command line, and runs it with the
// user's stdin, stdout, stderr, environment and signals, keeping a copy of
// its stdout for whoever traces it. It knows nothing of OpenTelemetry.
package agent

import (
	"slices"
	"strings"
)

// The output formats cursor-agent prints in print mode.
const (
	FormatText       = "text"
	FormatJSON       = "json"
	FormatStreamJSON = "stream-json"
)

// valueFlags are cursor-agent's options that take a value (from its --help,
// 2026); optionalValueFlags take one when the next argument is not an option.
var (
	valueFlags = []string{"--api-key", "-H", "--header", "-e", "--endpoint", "--output-format", "--mode",
		"--model", "-m", "--sandbox", "--workspace", "--add-dir", "--plugin-dir", "--worktree-base"}
	// shortValueFlags are the single letters of valueFlags, for combined
	// short flags (-pm gpt-5: print, and the model).
	shortValueFlags    = "Hem"
	optionalValueFlags = []string{"--resume", "-w", "--worktree"}
	// subcommands run untouched: they print no stream to trace.
	subcommands = []string{"install-shell-integration", "uninstall-shell-integration", "login", "logout",
		"mcp", "acp", "status", "whoami", "update", "upgrade", "create-chat", "ls", "resume", "help", "about", "generate-rule"}
	// infoFlags make cursor-agent print something and exit.
	infoFlags = []string{"-v", "--version", "-h", "--help", "--list-models"}
)

// Invocation is what a cursor-agent command line asks for.
type Invocation struct {
	Args       []string
	Print      bool   // -p / --print given
	Format     string // --output-format as given; "" when not given
	Subcommand string // a subcommand, when the command line names one
	Info       bool   // --help, --version, --list-models
	APIKey     string // the --api-key value, to be redacted
	Resume     string // the --resume value: the conversation resumed, an identifier
	Prompt     []int  // the indices in Args of the prompt's words
	formatAt   int    // index of the --output-format value, or -1
	insertAt   int    // where an --output-format can be added: before every option, so that it splits none
}

// Parse reads a cursor-agent command line the way cursor-agent does: options
// before the first argument that is not one, everything after "--" a prompt.
func Parse(args []string) Invocation {
	inv := Invocation{Args: args, formatAt: -1}
	if len(args) > 0 && args[0] == "agent" {
		inv.insertAt = 1 // after the subcommand that is a run like no subcommand at all
	}
	positional := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			for j := i + 1; j < len(args); j++ {
				inv.Prompt = append(inv.Prompt, j)
			}
			return inv
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			// The first operand names a subcommand or starts the prompt;
			// `cursor-agent agent …` is a run like no subcommand at all.
			switch {
			case !positional && a == "agent":
			case !positional && slices.Contains(subcommands, a):
				inv.Subcommand = a
				positional = true
			case inv.Subcommand == "":
				inv.Prompt = append(inv.Prompt, i)
				positional = true
			}
			continue
		}
		if letters, ok := shortFlags(a); ok {
			// -pf: -p and -f. A letter that takes a value takes the rest
			// of the word (-mgpt-5) or, last, the next argument.
			for j, c := range letters {
				if c == 'p' {
					inv.Print = true
				}
				if c == 'v' || c == 'h' {
					inv.Info = true
				}
				if strings.ContainsRune(shortValueFlags, c) {
					if j == len(letters)-1 && i+1 < len(args) {
						i++
					}
					break
				}
			}
			continue
		}
		name, value, joined := strings.Cut(a, "=")
		switch {
		case name == "-p" || name == "--print":
			inv.Print = true
		case slices.Contains(infoFlags, name):
			inv.Info = true
		case slices.Contains(valueFlags, name):
			at := i
			if !joined {
				if i+1 >= len(args) {
					continue // no value: cursor-agent will say so
				}
				i++
				value, at = args[i], i
			}
			switch name {
			case "--output-format":
				inv.Format, inv.formatAt = value, at
			case "--api-key":
				inv.APIKey = value
			}
		case slices.Contains(optionalValueFlags, name):
			if !joined && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				value = args[i]
			}
			if name == "--resume" {
				inv.Resume = value
			}
		}
	}
	return inv
}

// shortFlags reads -abc, several single-letter flags in one word.
func shortFlags(a string) (string, bool) {
	if len(a) < 3 || a[0] != '-' || a[1] == '-' || strings.ContainsRune(a, '=') {
		return "", false
	}
	for _, c := range a[1:] {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return "", false
		}
	}
	return a[1:], true
}

// ACP says the command line runs an editor's ACP session (`acp`, after
// any global flags): the agent gets exactly these arguments.
func (inv Invocation) ACP() bool { return inv.Subcommand == "acp" }

// Untouched says the run prints no event stream to trace: a subcommand, or
// --help, --version, --list-models.
func (inv Invocation) Untouched() bool { return inv.Subcommand != "" || inv.Info }

// WithFormat returns the command line asking for format instead of what it
// asked for: the --output-format value replaced where it stands, or the
// option added before every other one (after a leading "agent"), where it
// cannot come between an option cursor-otel does not know and its value.
// Nothing else changes.
func (inv Invocation) WithFormat(format string) []string {
	args := slices.Clone(inv.Args)
	if inv.formatAt >= 0 {
		if name, _, joined := strings.Cut(args[inv.formatAt], "="); joined && name == "--output-format" {
			args[inv.formatAt] = "--output-format=" + format
		} else {
			args[inv.formatAt] = format
		}
		return args
	}
	return slices.Insert(args, inv.insertAt, "--output-format", format)
}
