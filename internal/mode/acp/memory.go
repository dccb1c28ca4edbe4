package acp

import (
	"runtime/debug"

	"github.com/cursor-otel/cursor-otel/internal/envlist"
)

// gcPercent is an ACP session's GOGC, unless the user set one. Its live
// heap is a MiB or two: collecting at 1.5× it rather than 2× took peak
// RSS from 21.5 to 20.3 MiB on 600 prompts back to back (21.2 to 19.6
// at 25 ms apart) for the same CPU, 0.20-0.22 s per 600 prompts
// (docs/performance.md).
const gcPercent = 50

// tuneGC sets the session's GOGC, unless the user did.
func tuneGC(environ []string) {
	if envlist.Get(environ, "GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}
