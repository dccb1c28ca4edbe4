package wrap

import (
	"slices"
	"strconv"
	"strings"
)

// commandLine renders a command as one line a shell would read back, but
// for the arguments at hidden (a prompt, when content is not captured):
// each reads <prompt: N bytes>.
func commandLine(path string, args []string, hidden []int) string {
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

// quote quotes an argument a shell would split or expand.
func quote(a string) string {
	if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`|&;<>()*?[]#~") {
		return strconv.Quote(a)
	}
	return a
}
