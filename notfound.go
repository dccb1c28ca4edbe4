package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
)

// notFound says that no cursor-agent was found, for a run cursor-otel
// has agentArgs for. What a newcomer types first (nothing, help, a
// command of cursor-otel's mistyped) would have gone to the agent; with
// none there, the error comes with the usage, or with the command meant.
// Named cursor-agent or agent, cursor-otel has no commands to offer.
func notFound(name string, agentArgs []string) func(w io.Writer, line string) {
	return func(w io.Writer, line string) {
		if name == "cursor-agent" || name == "agent" {
			fmt.Fprintln(w, line)
			return
		}
		if len(agentArgs) == 0 || agentArgs[0] == "help" {
			fmt.Fprintln(w, line)
			fmt.Fprintln(w)
			var c cli
			if parser, err := newParser(&c, w, func(int) {}); err == nil {
				_ = writeUsage(parser, kong.HelpOptions{}, w)
			}
			return
		}
		if meant := closestCommand(agentArgs[0]); meant != "" {
			line += fmt.Sprintf("; did you mean %s? (see cursor-otel --help)", meant)
		}
		fmt.Fprintln(w, line)
	}
}

// suggested are the commands a mistyped word is offered.
var suggested = []string{"replay", "version", "compare", "hooks", "hook", "flush", "help"}

// closestCommand is the command of cursor-otel's that word is a slip of
// (at most one edit for a word of up to four letters, two for longer;
// none for words under three letters, which are too many things), or "".
func closestCommand(word string) string {
	word = strings.ToLower(word)
	if len(word) < 3 || strings.HasPrefix(word, "-") || slices.Contains(suggested, word) {
		return ""
	}
	most := 1
	if len(word) > 4 {
		most = 2
	}
	best, bestDist := "", most+1
	for _, c := range suggested {
		if d := editDistance(word, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b
// (Damerau-Levenshtein without a substring edited twice): insertions,
// deletions, substitutions and swaps of two neighbours, one each.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
