package wrap

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cursor-otel/cursor-otel/internal/envlist"
)

// depthVar counts the cursor-otels a run goes through: each gives the
// agent it runs one more than it was given. A chain of cursor-otels
// running each other (a wrapper script around cursor-otel found as
// cursor-agent, which Find cannot recognise) stops at maxDepth, in a few
// processes, instead of thousands.
const depthVar = "CURSOR_OTEL_DEPTH"

// maxDepth is deeper than any agent nests agents on purpose (an agent
// running cursor-agent in a tool, which runs it again, ...).
const maxDepth = 8

// chainDepth reads the depth from the environment.
func chainDepth(environ []string) int {
	n, _ := strconv.Atoi(envlist.Get(environ, depthVar))
	return max(n, 0)
}

// withDepth is environ with the depth set to n.
func withDepth(environ []string, n int) []string {
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, depthVar+"=") {
			out = append(out, kv)
		}
	}
	return append(out, fmt.Sprintf("%s=%d", depthVar, n))
}
