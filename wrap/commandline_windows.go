//go:build windows

package wrap

import "github.com/cursor-otel/cursor-otel/agent"

// hostQuote: as a Windows program reads its command line back (Windows
// paths keep their backslashes).
var hostQuote = agent.WindowsArg
