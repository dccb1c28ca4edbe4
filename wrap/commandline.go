package wrap

import (
	"strconv"
	"strings"
)

// commandLine renders a command as one line a shell would read back.
func commandLine(path string, args []string) string {
	parts := make([]string, 0, len(args)+1)
	for _, a := range append([]string{path}, args...) {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`|&;<>()*?[]#~") {
			a = strconv.Quote(a)
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
