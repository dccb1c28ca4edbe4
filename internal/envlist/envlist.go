// Package envlist reads an environment given as a list (NAME=value), as
// a process hands it to a child: the last setting of a name wins.
package envlist

import "strings"

// Get is the value of name in environ, "" when it is not set.
func Get(environ []string, name string) string {
	for i := len(environ) - 1; i >= 0; i-- {
		// Not CutPrefix(e, name+"="): the tracer's settings ask for a
		// thousand names, each allocation of name+"=" a heap object.
		if e := environ[i]; len(e) > len(name) && e[len(name)] == '=' && strings.HasPrefix(e, name) {
			return e[len(name)+1:]
		}
	}
	return ""
}
