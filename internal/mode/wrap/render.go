package wrap

import (
	"errors"
	"io"

	"github.com/cursor-otel/cursor-otel/internal/agent"
	"github.com/cursor-otel/cursor-otel/parse"
)

// renderer prints what the user asked for (json or text) from the stream
// cursor-otel asked the agent for, as cursor-agent prints it: the result
// event as one line, or its text. What the agent printed that is not a
// stream event (a login prompt, an error, a warning) reaches the user as
// printed, in order: as it comes before the result, after the rendered
// result when it comes after the result event.
type renderer struct {
	out    io.Writer
	format string
	result []byte // the result line, or its text, once seen
	after  []byte // what the agent printed after the result event
}

// line takes one line of the stream: ev decoded from raw, ending in ending.
func (r *renderer) line(ev parse.Event, raw []byte, ending string) {
	switch e := ev.(type) {
	case *parse.Result:
		if r.format == agent.FormatJSON {
			r.result = append(append([]byte(nil), raw...), '\n')
		} else {
			r.result = append([]byte(e.Text), '\n')
		}
	case *parse.Blank:
		r.print(raw, ending)
	case *parse.Invalid:
		// Not JSON: the agent's own words. An object cut short or too
		// long to read is an event, not something to show.
		if errors.Is(e.Err, parse.ErrNotObject) {
			r.print(raw, ending)
		}
	case *parse.Unknown:
		if e.Type == "" { // JSON, but not an event
			r.print(raw, ending)
		}
	}
}

func (r *renderer) print(raw []byte, ending string) {
	if r.result != nil {
		r.after = append(append(r.after, raw...), ending...)
		return
	}
	_, _ = r.out.Write(append(append([]byte(nil), raw...), ending...))
}

// finish prints the result, for a run that succeeded (a failed run prints
// nothing of its own on stdout, as cursor-agent does), then what came
// after it.
func (r *renderer) finish(succeeded bool) {
	if succeeded && r.result != nil {
		_, _ = r.out.Write(r.result)
	}
	if len(r.after) > 0 {
		_, _ = r.out.Write(r.after)
	}
}
