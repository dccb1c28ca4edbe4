//go:build windows

package wrap

import "github.com/cursor-otel/cursor-otel/internal/agent"

// hostQuote: as a Windows program reads its command line back (Windows
// paths keep their backslashes).
var hostQuote = agent.WindowsArg
