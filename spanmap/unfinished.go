package spanmap

import (
	"go.opentelemetry.io/otel/codes"
)

// closing is how a turn closed while work in it was still open.
type closing int

const (
	closedOpen      closing = iota // the turn (the run, the session) ended before the work did
	closedCancelled                // the person cancelled the turn: nothing failed
	closedUntraced                 // part of the stream went unread: the work's end may be there
)

// unfinish is the one rule for a span whose work was still open when
// its turn closed, whichever source told it (a tool call, a request
// never answered, a wait, a subagent, a turn without its end): ERROR,
// error.type incomplete, why as the message; no failure when the person
// cancelled the turn; and when part of the stream went unread, no
// verdict but cursor.stream.untraced. A tool call says
// cursor.tool.outcome incomplete besides, whatever the rule says.
func (p *draft) unfinish(how closing, why string) {
	switch how {
	case closedCancelled:
	case closedUntraced:
		p.set(StreamUntraced.Bool(true))
	default:
		p.set(ErrorType.String(ErrIncomplete))
		p.setStatus(codes.Error, why)
	}
}

// streamClosing is how a run's end closed the work still open in it:
// part of the stream unread leaves no verdict (the work's end may be
// there); else a run the person interrupted was a cancelled turn.
func streamClosing(end End) closing {
	switch {
	case end.UntracedBytes > 0:
		return closedUntraced
	case end.Cancelled:
		return closedCancelled
	}
	return closedOpen
}

// stopAborted is a hook stop's status when the person cancelled the turn.
const stopAborted = "aborted"

// acpClosing is how an ACP turn that stopped for stopReason closed, for
// the work still open in it.
func acpClosing(stopReason string) closing {
	if stopReason == "cancelled" {
		return closedCancelled
	}
	return closedOpen
}
