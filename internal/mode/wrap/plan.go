package wrap

import "github.com/cursor-otel/cursor-otel/internal/agent"

// plan is how one run is carried out.
type plan struct {
	args   []string // what cursor-agent is given
	traced bool     // its stdout is a stream-json to trace; otherwise cursor-otel execs the agent
	render string   // json or text: cursor-otel prints this from the stream; "" passes stdout through
	format string   // what the user asked for
}

// planRun decides how to run cursor-agent: a stream-json run is passed
// through and traced; a json or text run in print mode (given, or inferred
// from a stdin or stdout that is not a terminal) is run as stream-json and
// rendered here, so it is traced too, unless rewriting is off; interactive
// runs and subcommands are the agent's alone.
func planRun(inv agent.Invocation, interactive, rewrite bool) plan {
	p := plan{args: inv.Args, format: inv.Format}
	if inv.Untouched() || (!inv.Print && interactive) {
		return p
	}
	switch inv.Format {
	case agent.FormatStreamJSON:
		p.traced = true
	case "", agent.FormatText, agent.FormatJSON:
		if p.format == "" {
			p.format = agent.FormatText // cursor-agent's default in print mode
		}
		if rewrite {
			p.args, p.traced, p.render = inv.WithFormat(agent.FormatStreamJSON), true, p.format
		}
	}
	return p
}
