// cursor-otel runs cursor-agent and turns its stream of events into
// OpenTelemetry traces, or replays recorded streams into traces. main only
// parses the command line and hands each mode its settings.
package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/cursor-otel/cursor-otel/internal/agent"
	"github.com/cursor-otel/cursor-otel/internal/conversation"
	"github.com/cursor-otel/cursor-otel/internal/mode/acp"
	"github.com/cursor-otel/cursor-otel/internal/mode/compare"
	"github.com/cursor-otel/cursor-otel/internal/mode/flush"
	"github.com/cursor-otel/cursor-otel/internal/mode/hook"
	"github.com/cursor-otel/cursor-otel/internal/mode/replay"
	"github.com/cursor-otel/cursor-otel/internal/mode/wrap"
	"github.com/cursor-otel/cursor-otel/internal/oneline"
	_ "github.com/cursor-otel/cursor-otel/internal/quietlog" // before the OpenTelemetry libraries log
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/internal/steplog"
	"github.com/cursor-otel/cursor-otel/internal/version"
	"github.com/cursor-otel/cursor-otel/spanmap"
	"github.com/cursor-otel/cursor-otel/tracer"
)

func main() {
	steplog.Mark("main")
	status := run(os.Args[0], os.Args[1:])
	steplog.Write()
	os.Exit(status)
}

// cli is cursor-otel's command line. Its flags are cursor-otel's own and
// come first; everything from the first argument that is not one of them
// is cursor-agent's (the hidden run command, the default).
type cli struct {
	settings.Flags

	Run     runCmd     `cmd:"" default:"withargs" hidden:"" help:"Run cursor-agent and trace it."`
	Replay  replayCmd  `cmd:"" help:"Turn recorded stream-json into traces, printed as trees."`
	Version versionCmd `cmd:"" help:"Print cursor-otel's version and the commit it was built from."`
	Compare compareCmd `cmd:"" help:"Compare two sets of runs (--summary-json files or recordings) as a Markdown table; --fail-if sets thresholds."`
	Hook    hookCmd    `cmd:"" help:"Handle one Cursor hook event on stdin (what a hooks.json entry runs)."`
	Hooks   hooksCmd   `cmd:"" help:"Add cursor-otel's entries to hooks.json, or remove them."`
	Flush   flushCmd   `cmd:"" help:"Send now the sessions earlier runs kept because no collector took them, and say how many went."`
}

const usage = `Run cursor-agent and trace it:

  cursor-otel [flags] [--] [cursor-agent args...]

Everything from the first argument that is not one of the flags below (or
everything after --) goes to cursor-agent unchanged. Installed under the
name cursor-agent or agent, cursor-otel takes no flags: its settings come
from the CURSOR_OTEL_* variables.`

// statusUsage is the exit status of a command line cursor-otel cannot
// read; nothing is run.
const statusUsage = 2

// run parses the command line and runs it, returning the exit status.
func run(argv0 string, args []string) int {
	if len(args) == 1 && args[0] == flush.DelivererArg {
		tracer.Silence()
		return deliverInBackground()
	}
	name := agent.ProgramName(argv0)
	if agentArgs, ok := agentsAlone(name, args); ok {
		// Most runs: building kong's model of the command line costs more
		// than the rest of cursor-otel's start, and there is nothing of
		// cursor-otel's in it to parse.
		tracer.Silence()
		var status int
		_ = (&runCmd{Args: agentArgs}).Run(&cli{}, &status)
		return status
	}
	if hookAlone(name, args) {
		// Cursor runs a hook event for every step of a session, and waits
		// for it: nothing to parse, so no kong.
		tracer.Silence()
		var status int
		_ = (&hookCmd{}).Run(&cli{}, &status)
		return status
	}
	var c cli
	exit := -1
	parser, err := kong.New(&c,
		kong.Name("cursor-otel"),
		kong.Description(usage),
		kong.Writers(os.Stdout, os.Stderr),
		kong.Exit(func(code int) { exit = code }),
	)
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
		fmt.Fprintf(os.Stderr, "cursor-otel: %v; see cursor-otel --help\n", err)
		return statusUsage
	}
	tracer.Silence()
	var status int
	if err := ctx.Run(&c, &status); err != nil {
		fmt.Fprintf(os.Stderr, "cursor-otel: %v\n", err)
		return 1
	}
	return status
}

// route turns a command line into kong's form. Named cursor-agent or agent,
// every argument is cursor-agent's. Otherwise cursor-otel's own flags are
// taken from the front; then replay, version or --help are cursor-otel's,
// and anything else starts cursor-agent's arguments. A flag of
// cursor-otel's that wants a value and has none is an error: it never
// takes the next option, nor anything cursor-otel adds, as its value.
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
		case slices.Contains(ownCommands, theirs[0]):
			return args, nil
		case theirs[0] == "--":
			theirs = theirs[1:]
		}
	}
	return slices.Concat(mine, []string{"run", "--"}, theirs), nil
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

// hookAlone says the command line is a hook event's, as hooks.json
// entries write it: cursor-otel hook, and nothing else.
func hookAlone(name string, args []string) bool {
	return name != "cursor-agent" && name != "agent" && len(args) == 1 && args[0] == "hook"
}

// ownCommands are the first arguments that are cursor-otel's, not
// cursor-agent's.
var ownCommands = []string{"replay", "version", "compare", "hook", "hooks", "flush", "--help", "-h"}

// ownFlags are cursor-otel's flags by long name, each saying whether it is
// a switch (takes no separate value).
func ownFlags(p *kong.Kong) map[string]bool {
	own := map[string]bool{}
	for _, f := range p.Model.Node.Flags {
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
	Args []string `arg:"" optional:"" passthrough:""`
}

func (r *runCmd) Run(c *cli, status *int) error {
	args := r.Args
	if len(args) > 0 && args[0] == "--" {
		args = args[1:] // the separator route puts before cursor-agent's arguments
	}
	s, problems := settings.Load(c.Flags, os.Getenv)
	*status = wrap.Run(context.Background(), wrap.Config{
		Settings: s, Problems: problems, Args: args, Environ: os.Environ(), Self: self(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, DeliverKept: deliverKept(s), Deliverer: deliverer(s),
		ACP: func(ctx context.Context, path string, env []string, inv agent.Invocation) int {
			return acp.Run(ctx, acp.Config{Settings: s, Path: path, Args: args, Env: env, Environ: os.Environ(), APIKey: inv.APIKey,
				Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, DeliverKept: deliverKept(s), Deliverer: deliverer(s)})
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

// hookProgram is this program as hooks.json entries name it: its own
// entries are known by what they run, not by the binary's name.
func hookProgram() hook.Program {
	me := self()
	return hook.Program{Path: me.Path, Is: me.Is}
}

type replayCmd struct {
	Now   bool     `help:"Move the recordings to the present: the latest time they give becomes now, durations and order kept (for a trace viewer's default search of the last hour)."`
	Files []string `arg:"" optional:"" name:"file" help:"Recorded stream-json files; - (or none) reads stdin."`
}

// Run replays; settings that are wrong stop it (exit 2): there is no agent
// to keep running.
func (r *replayCmd) Run(c *cli, status *int) error {
	s, problems := settings.Load(c.Flags, os.Getenv)
	if problems != nil {
		fmt.Fprintf(os.Stderr, "cursor-otel: %v\n", problems)
		*status = statusUsage
		return nil
	}
	*status = replay.Run(context.Background(), replay.Config{
		Settings: s, Files: r.Files, Now: r.Now, Environ: os.Environ(), Getenv: os.Getenv,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, DeliverKept: deliverKept(s), Deliverer: deliverer(s),
	})
	return nil
}

type compareCmd struct {
	FailIf []string `name:"fail-if" sep:"none" placeholder:"EXPR" help:"Exit 1 when NEW crosses this against BASE (repeatable): FIGURE OP VALUE, e.g. wall>+20% (relative change), cost>+0.50 (change), failures>0 (NEW's value). Figures: wall, model, tools, idle, tool:KIND, tokens, input_tokens, output_tokens, cost, model_calls, tool_calls, failures, tool_failures, stalls."`
	Base   string   `arg:"" help:"The runs to compare with: a --summary-json file (one or many runs) or a recording."`
	New    string   `arg:"" help:"The runs to compare: a --summary-json file or a recording."`
}

// Run compares; a wrong price file is unreadable input (exit 2).
func (r *compareCmd) Run(c *cli, status *int) error {
	s, problems := settings.Load(c.Flags, os.Getenv)
	if problems != nil {
		fmt.Fprintf(os.Stderr, "cursor-otel: %v\n", problems)
		*status = compare.StatusUnreadable
		return nil
	}
	*status = compare.Run(compare.Config{Base: r.Base, New: r.New, FailIf: r.FailIf, Prices: s.Prices, StallAfter: s.StallThreshold, Stdout: os.Stdout, Stderr: os.Stderr})
	return nil
}

type hookCmd struct{}

// Run handles one hook event. Always status 0, and silent: a hook's
// output and failures show in the user's transcript.
func (h *hookCmd) Run(c *cli, status *int) error {
	s, problems := settings.Load(c.Flags, os.Getenv)
	dir := conversation.DefaultDir(os.Environ())
	var pending func() bool
	if problems == nil {
		pending = func() bool { return keptFor(s) }
	}
	*status = hook.Run(hook.Config{Settings: s, Problems: problems, Environ: os.Environ(), Stdin: os.Stdin, Stdout: os.Stdout,
		StateDir: dir, Deliver: func(dir string) { startDelivery(s, "CURSOR_OTEL_STATE_DIR="+dir) }, Kept: pending})
	return nil
}

type flushCmd struct {
	Redirect bool `help:"Also send the sessions kept for another collector (another address, protocol or credentials) to the one set now. Without it they wait for their own."`
}

// Run exports what the hooks recorded and not yet exported, then
// delivers what earlier runs kept.
func (f *flushCmd) Run(c *cli, status *int) error {
	s, problems := settings.Load(c.Flags, os.Getenv)
	if problems != nil {
		fmt.Fprintf(os.Stderr, "cursor-otel: %v\n", problems)
		*status = statusUsage
		return nil
	}
	ctx := context.Background()
	state := conversation.DefaultDir(os.Environ())
	fc := flush.Config{Settings: s, Getenv: os.Getenv, Environ: os.Environ(), Stdout: os.Stdout, Stderr: os.Stderr, Redirect: f.Redirect}
	// A background delivery alive has other settings, maybe: this flush
	// waits for it to end, and then does what was asked itself.
	if !flush.AwaitBackground(ctx, deliverersDir(s, state), flush.BackgroundLife, func() {
		fmt.Fprintf(os.Stderr, "cursor-otel: a background delivery is at work; waiting for it to end (at most %s)\n", flush.BackgroundLife)
	}) {
		fmt.Fprintf(os.Stderr, "cursor-otel: a background delivery has been at work for over %s; nothing sent: run cursor-otel flush again once it ends\n", flush.BackgroundLife)
		*status = 1
		return nil
	}
	// Turns whose stop came within the grace are built once it ends: the
	// user asked for what is there now.
	build := hook.BuildConfig{Settings: s, Environ: os.Environ(), Getenv: os.Getenv, StateDir: state}
	for again := hook.Build(ctx, build); !again.IsZero() && time.Until(again) <= spanmap.HookGrace; again = hook.Build(ctx, build) {
		time.Sleep(time.Until(again))
	}
	fc.HookSetAside = hook.SetAside(state)
	if kept := hook.SpoolDir(s, state); s.Spool == "" && exists(kept) {
		fc.Settings.Spool = kept // the spool is off: the hooks' own holds their turns
	}
	*status = flush.Run(ctx, fc)
	return nil
}

// exists says a file or directory is there.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// deliverInBackground is the process startDelivery starts: the hooks'
// records, then what earlier runs kept for the collector set now. It
// prints nothing, starts nothing, and ends itself by flush.BackgroundLife
// whatever it waits on.
func deliverInBackground() int {
	time.AfterFunc(flush.BackgroundLife, func() { os.Exit(0) })
	s, problems := settings.Load(settings.Flags{}, os.Getenv)
	if problems != nil {
		return 0
	}
	state := conversation.DefaultDir(os.Environ())
	lockDir := deliverersDir(s, state)
	s.Spool = hook.SpoolDir(s, state) // with the spool off, the hooks' own
	return flush.Background(flush.Config{Settings: s, Getenv: os.Getenv, Environ: os.Environ()}, lockDir,
		func(ctx context.Context) time.Time {
			return hook.Build(ctx, hook.BuildConfig{Settings: s, Environ: os.Environ(), Getenv: os.Getenv, StateDir: state})
		})
}

// deliverersDir is where the one background delivery of these settings
// holds its lock: the spool, or the hooks' state when there is none.
func deliverersDir(s settings.Settings, state string) string {
	return cmp.Or(s.Spool, state)
}

// startDelivery starts the background delivery (flush.Start) for these
// settings; env is added to this process's environment.
func startDelivery(s settings.Settings, env ...string) {
	environ := append(os.Environ(), env...)
	flush.Start(deliverersDir(s, conversation.DefaultDir(environ)), environ)
}

// deliverKept starts a background delivery of what earlier runs kept for
// the collector set now, if anything is: a run never waits for it.
func deliverKept(s settings.Settings) func() {
	return func() {
		if keptFor(s) {
			startDelivery(s)
		}
	}
}

// deliverer starts the background delivery a run hands its last spans
// over to.
func deliverer(s settings.Settings) func() {
	return func() { startDelivery(s) }
}

// keptFor says earlier runs kept sessions for the collector set now.
func keptFor(s settings.Settings) bool {
	if s.Spool == "" {
		return false
	}
	to, ok := tracer.Destination(os.Getenv)
	return ok && spool.Open(s.Spool, s.SpoolMax).Pending(to)
}

type hooksCmd struct {
	Install   hooksInstallCmd   `cmd:"" help:"Add cursor-otel's hook to ~/.cursor/hooks.json (or the project's), beside what is there."`
	Uninstall hooksUninstallCmd `cmd:"" help:"Remove cursor-otel's entries from hooks.json, giving the file back as it was."`
}

type hooksInstallCmd struct {
	Project bool `help:"The project's .cursor/hooks.json (in the current directory) rather than the user's."`
}

func (h *hooksInstallCmd) Run(status *int) error {
	return editHooks(h.Project, status, func(path string) (string, error) {
		changed, err := hook.Install(path, hookProgram())
		said := "already installed in"
		if changed {
			said = "installed in"
		}
		return fmt.Sprintf("%s %s (%d events)", said, path, len(hook.Events)), err
	})
}

type hooksUninstallCmd struct {
	Project bool `help:"The project's .cursor/hooks.json rather than the user's."`
}

func (h *hooksUninstallCmd) Run(status *int) error {
	return editHooks(h.Project, status, func(path string) (string, error) {
		changed, err := hook.Uninstall(path, hookProgram())
		said := "not installed in"
		if changed {
			said = "removed from"
		}
		return fmt.Sprintf("%s %s", said, path), err
	})
}

// editHooks runs edit on the hooks.json that project names and prints
// what it did; a failure is one line on stderr and status 1.
func editHooks(project bool, status *int, edit func(path string) (said string, err error)) error {
	path, err := hooksPath(project)
	if err == nil {
		var said string
		if said, err = edit(path); err == nil {
			fmt.Printf("cursor-otel: hook %s\n", said)
			return nil
		}
	}
	fmt.Fprintln(os.Stderr, oneline.Join(err.Error()))
	*status = 1
	return nil
}

func hooksPath(project bool) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	home, err := os.UserHomeDir()
	if err != nil && !project {
		return "", err
	}
	return hook.HooksPath(project, dir, home), nil
}

type versionCmd struct{}

func (versionCmd) Run() error {
	_, err := fmt.Printf("cursor-otel %s\n", version.Read().Long())
	return err
}
