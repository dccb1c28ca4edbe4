// cursor-otel runs cursor-agent and turns its stream of events into
// OpenTelemetry traces, or replays recorded streams into traces.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kong"
)

// version is set at build time (-ldflags "-X main.version=…"); otherwise it
// is the module version Go recorded, or "dev".
var version = ""

func main() {
	os.Exit(run(os.Args[0], os.Args[1:]))
}

// cli is cursor-otel's command line. Its flags are cursor-otel's own and
// come first; everything from the first argument that is not one of them
// is cursor-agent's (the hidden run command, the default).
type cli struct {
	CaptureContent bool          `help:"Also record the prompt, assistant and thinking text, tool arguments and results (redacted, truncated)." env:"CURSOR_OTEL_CAPTURE_CONTENT"`
	Quiet          bool          `help:"Print nothing of cursor-otel's own: no replay tree, no warning about an unreachable collector." env:"CURSOR_OTEL_QUIET"`
	FlushTimeout   time.Duration `default:"3s" help:"How long exporting may delay exit." env:"CURSOR_OTEL_FLUSH_TIMEOUT"`
	Agent          string        `help:"The cursor-agent to run: a path, or a name on PATH. Default: cursor-agent, then agent, on PATH." env:"CURSOR_OTEL_AGENT" placeholder:"PATH"`

	Run     runCmd     `cmd:"" default:"withargs" hidden:"" help:"Run cursor-agent and trace it."`
	Replay  replayCmd  `cmd:"" help:"Turn recorded stream-json into traces, printed as trees."`
	Version versionCmd `cmd:"" help:"Print cursor-otel's version."`
}

const usage = `Run cursor-agent and trace it:

  cursor-otel [flags] [--] [cursor-agent args...]

Everything from the first argument that is not one of the flags below (or
everything after --) goes to cursor-agent unchanged. Installed under the
name cursor-agent or agent, cursor-otel takes no flags: its settings come
from the CURSOR_OTEL_* variables.`

// run parses the command line and runs it, returning the exit status.
func run(argv0 string, args []string) int {
	var c cli
	exit := -1
	parser, err := kong.New(&c,
		kong.Name("cursor-otel"),
		kong.Description(usage),
		kong.Writers(os.Stdout, os.Stderr),
		kong.Exit(func(code int) { exit = code }),
		kong.Bind(&streams{os.Stdin, os.Stdout, os.Stderr}),
	)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cursor-otel: %v\n", err)
		return 2
	}
	ctx, err := parser.Parse(route(filepath.Base(argv0), args, ownFlags(parser)))
	if exit >= 0 {
		return exit // --help
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cursor-otel: %v\n", err)
		return 2
	}
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
// and anything else starts cursor-agent's arguments.
func route(name string, args []string, own map[string]bool) []string {
	if name == "cursor-agent" || name == "agent" {
		return append([]string{"run", "--"}, args...)
	}
	i := 0
	for i < len(args) {
		flag, _, joined := strings.Cut(args[i], "=")
		isBool, ok := own[flag]
		if !ok {
			break
		}
		i++
		if !isBool && !joined {
			i++ // its value
		}
	}
	i = min(i, len(args))
	mine, theirs := args[:i], args[i:]
	if len(theirs) > 0 {
		switch theirs[0] {
		case "replay", "version", "--help", "-h":
			return args
		case "--":
			theirs = theirs[1:]
		}
	}
	return slices.Concat(mine, []string{"run", "--"}, theirs)
}

// ownFlags are cursor-otel's flags by long name, each saying whether it is
// a boolean (takes no separate value).
func ownFlags(p *kong.Kong) map[string]bool {
	own := map[string]bool{}
	for _, f := range p.Model.Node.Flags {
		if f.Name != "help" {
			own["--"+f.Name] = f.IsBool()
		}
	}
	return own
}

// streams are the process's standard streams.
type streams struct {
	stdin, stdout, stderr *os.File
}

type versionCmd struct{}

func (versionCmd) Run(s *streams) error {
	_, err := fmt.Fprintf(s.stdout, "cursor-otel %s\n", buildVersion())
	return err
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}
