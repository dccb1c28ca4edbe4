package replay

import (
	"fmt"
	"strconv"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/oneline"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// waitingLine says what replay waits for once the export outlasts the
// flush timeout: "cursor-otel: waiting for the collector at ADDR: 40,000
// of 102,678 spans taken, last answer 0.3s ago".
func waitingLine(w tracer.Waiting) string {
	last := "no answer yet"
	if w.SinceAnswer > 0 {
		last = fmt.Sprintf("last answer %.1fs ago", w.SinceAnswer.Round(100*time.Millisecond).Seconds())
	}
	return oneline.Join(fmt.Sprintf("waiting for the collector at %s: %s of %s spans taken, %s", w.Endpoint, thousands(w.Taken), thousands(w.Spans), last))
}

// thousands writes n with a comma between each three digits: 102,678.
func thousands(n int) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
