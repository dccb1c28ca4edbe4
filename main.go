// cursor-otel runs cursor-agent and turns its stream of events into
// OpenTelemetry traces, or replays recorded streams into traces. main only
// parses the command line and hands each mode its settings.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/cursor-otel/cursor-otel/internal/agent"
	"github.com/cursor-otel/cursor-otel/internal/mode/acp"
	"github.com/cursor-otel/cursor-otel/internal/mode/flush"
	"github.com/cursor-otel/cursor-otel/internal/mode/wrap"
	_ "github.com/cursor-otel/cursor-otel/internal/quietlog" // before the OpenTelemetry libraries log
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/internal/steplog"
	"github.com/cursor-otel/cursor-otel/tracer"
)

func main() {
	steplog.Mark("main")
	status := run(os.Args[0], os.Args[1:])
	steplog.Write()
	os.Exit(status)
}

// cli is cursor-otel's command line. Each command has its own flags, and
// only those: wrap mode's (the hidden run command) come first, and
// everything from the first argument that is not one of them is
// cursor-agent's (see route). Each other command takes the groups of
// settings.Flags it uses.
type cli struct {
	Run     runCmd     `cmd:"" hidden:"" help:"Run cursor-agent and trace it."`
	Replay  replayCmd  `cmd:"" help:"Turn recorded stream-json into traces, printed as trees."`
	Version versionCmd `cmd:"" help:"Print cursor-otel's version and the commit it was built from."`
	Compare compareCmd `cmd:"" help:"Compare two sets of runs (--summary-json files or recordings) as a Markdown table; --fail-if sets thresholds."`
	Hook    hookCmd    `cmd:"" help:"Handle one Cursor hook event on stdin (what a hooks.json entry runs)."`
	Hooks   hooksCmd   `cmd:"" help:"Add cursor-otel's entries to hooks.json, or remove them."`
	Flush   flushCmd   `cmd:"" help:"Send now the sessions earlier runs kept because no collector took them, and say how many went."`
}

const usage = `Run cursor-agent and trace it (wrap mode). Everything from the first
argument that is not one of the flags below (or everything after --) goes to
cursor-agent unchanged. Installed under the name cursor-agent or agent,
cursor-otel takes no flags: its settings come from the CURSOR_OTEL_*
variables.`

// environment is this process's environment, read when it is used: what
// starts the background delivery passes on the environment of that moment.
var environment = flush.Env{Getenv: os.Getenv, Environ: os.Environ}

// statusUsage is the exit status of a command line cursor-otel cannot
// read; nothing is run.
const statusUsage = 2

// run parses the command line and runs it, returning the exit status.
func run(argv0 string, args []string) int {
	if len(args) == 1 && args[0] == flush.DelivererArg {
		tracer.Silence()
		return flush.Process(environment)
	}
	name := agent.ProgramName(argv0)
	if agentArgs, ok := agentsAlone(name, args); ok {
		// Most runs: building kong's model of the command line costs more
		// than the rest of cursor-otel's start, and there is nothing of
		// cursor-otel's in it to parse.
		tracer.Silence()
		var status int
		_ = (&runCmd{Args: agentArgs, name: name}).Run(&status)
		return status
	}
	if h, ok := hookAlone(name, args); ok {
		// Cursor runs a hook event for every step of a session, and waits
		// for it: no kong.
		tracer.Silence()
		var status int
		_ = h.Run(&status)
		return status
	}
	var c cli
	exit := -1
	parser, err := newParser(&c, os.Stdout, func(code int) { exit = code })
	if err != nil {
		fmt.Fprintf(os.Stderr, "cursor-otel: %v\n", err)
		return statusUsage
	}
	routed, err := route(name, args, ownFlags(parser))
	if err != nil {
		fmt.Fprintf(os.Stderr, "cursor-otel: %v; see cursor-otel --help\n", err)
		return statusUsage
	}
	ctx, err := parser.Parse(routed)
	if exit >= 0 {
		return exit // --help
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cursor-otel: "+explain(parser, err))
		return statusUsage
	}
	c.Run.name = name
	tracer.Silence()
	var status int
	if err := ctx.Run(&status); err != nil {
		fmt.Fprintf(os.Stderr, "cursor-otel: %v\n", err)
		return 1
	}
	return status
}

// route turns a command line into kong's form. Named cursor-agent or agent,
// every argument is cursor-agent's. Otherwise wrap mode's flags (own) are
// taken from the front; then a command of cursor-otel's (replay, version,
// --help, …) is cursor-otel's, those flags moved after it for the command
// to take or refuse, and anything else starts cursor-agent's arguments. A
// flag that wants a value and has none is an error: it never takes the
// next option, nor anything cursor-otel adds, as its value.
func route(name string, args []string, own map[string]bool) ([]string, error) {
	if name == "cursor-agent" || name == "agent" {
		return append([]string{"run", "--"}, args...), nil
	}
	i := 0
	for i < len(args) {
		flag, _, joined := strings.Cut(args[i], "=")
		isBool, ok := own[flag]
		if !ok {
			break
		}
		i++
		if isBool || joined {
			continue
		}
		if i >= len(args) || strings.HasPrefix(args[i], "-") {
			return nil, fmt.Errorf("%s needs a value (%s=VALUE)", flag, flag)
		}
		i++ // its value
	}
	mine, theirs := args[:i], args[i:]
	if len(theirs) > 0 {
		switch {
		case theirs[0] == "--help" || theirs[0] == "-h":
			return theirs[:1], nil // the usage, whatever came before
		case slices.Contains(ownCommands, theirs[0]):
			n := 1 // the command's words: hooks has its own commands
			if theirs[0] == "hooks" && len(theirs) > 1 && !strings.HasPrefix(theirs[1], "-") {
				n = 2
			}
			return slices.Concat(theirs[:n], mine, theirs[n:]), nil
		case theirs[0] == "--":
			theirs = theirs[1:]
		}
	}
	return slices.Concat([]string{"run"}, mine, []string{"--"}, theirs), nil
}

// agentsAlone returns the arguments of a command line that route sends
// to cursor-agent whatever cursor-otel's flags are: one whose first
// argument cannot be one of them (only cursor-otel's own are long flags
// that come first). They start with the -- that runCmd takes off. ok is
// false for anything else, which kong then parses.
func agentsAlone(name string, args []string) (agentArgs []string, ok bool) {
	agents := name == "cursor-agent" || name == "agent"
	if !agents && len(args) > 0 && args[0] != "--" && strings.HasPrefix(args[0], "--") {
		return nil, false
	}
	routed, err := route(name, args, nil) // no flag of cursor-otel's comes first
	if err != nil || len(routed) == 0 || routed[0] != "run" {
		return nil, false
	}
	return routed[1:], true
}

// ownCommands are the first arguments that are cursor-otel's, not
// cursor-agent's.
var ownCommands = []string{"replay", "version", "compare", "hook", "hooks", "flush", "--help", "-h"}

// ownFlags are wrap mode's flags by long name, each saying whether it is
// a switch (takes no separate value).
func ownFlags(p *kong.Kong) map[string]bool {
	own := map[string]bool{}
	for _, f := range wrapNode(p).Flags {
		if f.Name != "help" {
			own["--"+f.Name] = f.IsBool()
			if f.Tag.Negatable != "" {
				own["--no-"+f.Name] = true
			}
		}
	}
	return own
}

// runCmd is wrap mode: cursor-agent run with the user's arguments, traced.
type runCmd struct {
	settings.Flags
	Args []string `arg:"" optional:"" passthrough:"" help:"cursor-agent's arguments, passed on unchanged."`

	name string // cursor-otel's program name, which says whether to help when no agent is found
}

func (r *runCmd) Run(status *int) error {
	args := r.Args
	if len(args) > 0 && args[0] == "--" {
		args = args[1:] // the separator route puts before cursor-agent's arguments
	}
	s, problems := settings.Load(r.Flags, os.Getenv)
	*status = wrap.Run(context.Background(), wrap.Config{
		Settings: s, Problems: problems, Args: args, Environ: os.Environ(), Self: self(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, DeliverKept: flush.DeliverKept(s, environment), Deliverer: flush.Deliverer(s, environment),
		NotFound: notFound(r.name, args),
		ACP: func(ctx context.Context, path string, env []string, inv agent.Invocation) int {
			return acp.Run(ctx, acp.Config{Settings: s, Path: path, Args: args, Env: env, Environ: os.Environ(), APIKey: inv.APIKey,
				Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, DeliverKept: flush.DeliverKept(s, environment), Deliverer: flush.Deliverer(s, environment)})
		},
	})
	return nil
}

// self is this program, as the search for cursor-agent must skip it.
func self() agent.Self {
	s := agent.Self{}
	s.Path, _ = os.Executable()
	if bi, ok := debug.ReadBuildInfo(); ok {
		s.Program = bi.Path
	}
	return s
}
