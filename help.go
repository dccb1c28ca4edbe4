package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/alecthomas/kong"
)

// newParser is kong's model of the command line, printing its help to
// out and exiting through exit.
func newParser(c *cli, out io.Writer, exit func(int)) (*kong.Kong, error) {
	return kong.New(c,
		kong.Name("cursor-otel"),
		kong.Description(usage),
		kong.Writers(out, os.Stderr),
		kong.Exit(exit),
		kong.Help(printHelp),
	)
}

// acpHelp is the line --help gives acp: cursor-agent's own subcommand,
// which wrap mode runs as an ACP session (see the contract's ACP).
const acpHelp = `  [flags] [--] [cursor-agent global flags] acp
    An editor's ACP session with cursor-agent, traced: cursor-agent's acp,
    run through wrap mode (its global flags, such as --api-key, before it).`

// printHelp is kong's help, but the whole program's (cursor-otel --help,
// cursor-otel help with no agent) is wrap mode's with every command under
// it, acp included: wrap mode is the hidden default command, and its flags
// are no other command's.
func printHelp(options kong.HelpOptions, ctx *kong.Context) error {
	if ctx.Selected() != nil && ctx.Selected().Name != "run" {
		return kong.DefaultHelpPrinter(options, ctx)
	}
	return writeUsage(ctx.Kong, options, ctx.Stdout)
}

// writeUsage writes the whole program's help to w: wrap mode's, with
// the program's description, then the commands.
func writeUsage(k *kong.Kong, options kong.HelpOptions, w io.Writer) error {
	fmt.Fprintln(w, "Usage: cursor-otel [flags] [--] [cursor-agent args...]")
	fmt.Fprintln(w, "       cursor-otel <command> [flags]")
	wrapCtx, err := kong.Trace(k, []string{"run"})
	if err != nil {
		return err
	}
	wrapCtx.Stdout = w
	wrapCtx.Selected().Help = k.Model.Help
	options.NoAppSummary, options.Summary = true, false
	if options.ValueFormatter == nil {
		options.ValueFormatter = kong.DefaultHelpValueFormatter
	}
	if err := kong.DefaultHelpPrinter(options, wrapCtx); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nCommands:")
	fmt.Fprintln(w, acpHelp)
	for _, c := range k.Model.Leaves(true) {
		if c.Name == "run" {
			continue
		}
		fmt.Fprintf(w, "\n  %s\n", c.Summary())
		for _, line := range wrapText(c.Help, 72) {
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
	_, err = fmt.Fprintln(w, "\nRun \"cursor-otel <command> --help\" for more information on a command.")
	return err
}

// wrapText cuts text into lines of at most width characters, at blanks.
func wrapText(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines, line = append(lines, line), ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// wrapNode is wrap mode's command in kong's model.
func wrapNode(p *kong.Kong) *kong.Node {
	for _, c := range p.Model.Node.Children {
		if c.Name == "run" {
			return c
		}
	}
	return p.Model.Node
}

// explain says what is wrong with a command line kong refused, in one
// line: a wrap mode flag given to another command is named as such.
func explain(p *kong.Kong, err error) string {
	command := "cursor-otel"
	var pe *kong.ParseError
	if errors.As(err, &pe) && pe.Context != nil && pe.Context.Selected() != nil {
		command = pe.Context.Selected().FullPath()
	}
	if flag, ok := strings.CutPrefix(err.Error(), "unknown flag "); ok {
		name, _, _ := strings.Cut(flag, "=")
		if _, wraps := ownFlags(p)[name]; wraps && command != "cursor-otel" {
			return fmt.Sprintf("%s takes no %s: it is a flag of wrap mode (cursor-otel %s … [--] [cursor-agent args...]); see %s --help",
				strings.TrimPrefix(command, "cursor-otel "), name, name, command)
		}
	}
	return fmt.Sprintf("%v; see %s --help", err, command)
}
