// cursor-otel runs cursor-agent and turns its stream of events into
// OpenTelemetry traces, or replays recorded streams into traces.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/cursor-otel/cursor-otel/internal/version"
	"github.com/cursor-otel/cursor-otel/tracer"
)

func main() {
	os.Exit(run(os.Args[0], os.Args[1:]))
}

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
	tracer.Silence()
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
			if f.Tag.Negatable != "" {
				own["--no-"+f.Name] = true
			}
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
	_, err := fmt.Fprintf(s.stdout, "cursor-otel %s\n", version.Read().Long())
	return err
}
