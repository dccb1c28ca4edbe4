package wrap

import (
	"slices"
	"strconv"
	"strings"
)

// commandLine renders a command as one line this platform's shell would
// read back (see hostQuote), but for the arguments at hidden (a prompt,
// when content is not captured): each reads <prompt: N bytes>.
func commandLine(path string, args []string, hidden []int) string {
	return commandLineWith(hostQuote, path, args, hidden)
}

func commandLineWith(quote func(string) string, path string, args []string, hidden []int) string {
	parts := make([]string, 0, len(args)+1)
	parts = append(parts, quote(path))
	for i, a := range args {
		if slices.Contains(hidden, i) {
			parts = append(parts, "<prompt: "+strconv.Itoa(len(a))+" bytes>")
			continue
		}
		parts = append(parts, quote(a))
	}
	return strings.Join(parts, " ")
}

// posixQuote quotes an argument a POSIX shell would split or expand.
func posixQuote(a string) string {
	if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`|&;<>()*?[]#~") {
		return strconv.Quote(a)
	}
	return a
}
