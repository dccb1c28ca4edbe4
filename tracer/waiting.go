package tracer

import (
	"fmt"

	"github.com/cursor-otel/cursor-otel/internal/oneline"
)

// WaitingNote is the line a run says when more sessions than it last said
// wait in the spool for another collector than the one set now (another
// address, protocol, header value or certificate): they go nowhere until
// the user acts, so the user hears of them in a short line that points to
// flush --list, once for each growth; "" when no more wait. (Call it after Shutdown, or after LookAtSpool, of whose
// look it then tells; the caller leaves it unsaid, and uncalled, under
// --quiet.)
func (p *Provider) WaitingNote() string {
	if p.spool == nil || p.guard == nil {
		return ""
	}
	l := p.look.Load()
	if l == nil {
		now := p.spool.Look(p.destination())
		l = &now
	}
	n := p.spool.NewlyWaitingIn(*l)
	if n == 0 {
		return ""
	}
	verb := "wait"
	if n == 1 {
		verb = "waits"
	}
	return fmt.Sprintf("%s %s for another collector (%s): cursor-otel flush --list",
		oneline.Count(n, "session"), verb, oneline.Count(l.ElsewhereTo, "destination"))
}
