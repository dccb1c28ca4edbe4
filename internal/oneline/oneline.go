// Package oneline makes the one line cursor-otel may print on stderr: what
// it has to say, joined, in words a user acts on.
package oneline

import (
	"fmt"
	"strings"

	"github.com/cursor-otel/cursor-otel/internal/visible"
)

// Join joins notes into one line prefixed "cursor-otel: ", or "" when there
// is nothing to say. A note's own prefix is dropped; so are empty notes.
// Line breaks and control characters in a note (an error quoting the
// agent's output) are written as escapes: the line stays one, and acts on
// no terminal.
func Join(notes ...string) string {
	var kept []string
	for _, n := range notes {
		if n = strings.TrimSpace(strings.TrimPrefix(n, "cursor-otel: ")); n != "" {
			kept = append(kept, visible.Line(n))
		}
	}
	if len(kept) == 0 {
		return ""
	}
	return "cursor-otel: " + strings.Join(kept, "; ")
}

// Size says a number of bytes the way a person reads it.
func Size(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Count says n of what, in the plural unless n is 1: "1 session",
// "3 sessions".
func Count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
