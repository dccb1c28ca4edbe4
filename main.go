// cursor-otel runs cursor-agent and turns its stream of events into
// OpenTelemetry traces, or replays recorded streams into traces.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/alecthomas/kong"
)

// version is set at build time (-ldflags "-X main.version=…"); otherwise it
// is the module version Go recorded, or "dev".
var version = ""

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// cli is cursor-otel's command line: its own commands. Everything else on
// the command line belongs to cursor-agent (wrap mode).
type cli struct {
	Replay  replayCmd  `cmd:"" help:"Turn recorded stream-json into traces."`
	Version versionCmd `cmd:"" help:"Print cursor-otel's version."`
}

// exportFlags are the settings every mode shares.
type exportFlags struct {
	CaptureContent bool          `help:"Also record the prompt, assistant and thinking text, tool arguments and results (redacted, truncated)." env:"CURSOR_OTEL_CAPTURE_CONTENT"`
	Quiet          bool          `short:"q" help:"Print nothing of cursor-otel's own, not even the warning about an unreachable collector." env:"CURSOR_OTEL_QUIET"`
	FlushTimeout   time.Duration `default:"3s" help:"How long exporting may delay exit." env:"CURSOR_OTEL_FLUSH_TIMEOUT"`
}

// streams are the process's standard streams, passed down so that tests
// can run commands in-process.
type streams struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// run parses the command line and runs it, returning the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var c cli
	exit := -1
	parser, err := kong.New(&c,
		kong.Name("cursor-otel"),
		kong.Description("Trace cursor-agent runs with OpenTelemetry."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { exit = code }),
		kong.Bind(&streams{stdin, stdout, stderr}),
	)
	if err != nil {
		fmt.Fprintf(stderr, "cursor-otel: %v\n", err)
		return 2
	}
	ctx, err := parser.Parse(args)
	if exit >= 0 {
		return exit // --help
	}
	if err != nil {
		fmt.Fprintf(stderr, "cursor-otel: %v\n", err)
		return 2
	}
	var status int
	if err := ctx.Run(&status); err != nil {
		fmt.Fprintf(stderr, "cursor-otel: %v\n", err)
		return 1
	}
	return status
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
