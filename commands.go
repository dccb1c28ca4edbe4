package main

import (
	"context"
	"fmt"
	"os"

	"github.com/cursor-otel/cursor-otel/internal/conversation"
	"github.com/cursor-otel/cursor-otel/internal/mode/compare"
	"github.com/cursor-otel/cursor-otel/internal/mode/flush"
	"github.com/cursor-otel/cursor-otel/internal/mode/replay"
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/internal/version"
)

type replayCmd struct {
	settings.Content
	settings.Redaction
	settings.Output
	settings.Delivery
	settings.Reports
	settings.Figures
	settings.Budget

	Now   bool     `help:"Move the recordings to the present: the latest time they give becomes now, durations and order kept (for a trace viewer's default search of the last hour)."`
	Keep  bool     `help:"Keep what the collector does not take, as a wrapped run does, for cursor-otel flush or the next run to send. Without it nothing is kept: the file is the copy."`
	Files []string `arg:"" optional:"" name:"file" help:"Recorded stream-json files; - (or none) reads stdin."`
}

// Run replays; settings that are wrong stop it (exit 2): there is no agent
// to keep running.
func (r *replayCmd) Run(status *int) error {
	s, problems := settings.Load(settings.Flags{Content: r.Content, Redaction: r.Redaction, Output: r.Output, Delivery: r.Delivery,
		Reports: r.Reports, Figures: r.Figures, Budget: r.Budget}, os.Getenv)
	if problems != nil {
		fmt.Fprintf(os.Stderr, "cursor-otel: %v\n", problems)
		*status = statusUsage
		return nil
	}
	*status = replay.Run(context.Background(), replay.Config{
		Settings: s, Files: r.Files, Now: r.Now, Keep: r.Keep, Environ: os.Environ(), Getenv: os.Getenv,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, DeliverKept: flush.DeliverKept(s, environment), Deliverer: flush.Deliverer(s, environment),
	})
	return nil
}

type compareCmd struct {
	settings.Figures

	FailIf []string `name:"fail-if" sep:"none" placeholder:"EXPR" help:"Exit 1 when NEW crosses this against BASE, with a line on stderr (repeatable): FIGURE OP VALUE. With a sign VALUE is a change from BASE, without one NEW's value; with % a relative change (wall>+20%), with s seconds (wall>+20s), with $ dollars (cost>+$0.50), bare the figure's own unit (wall>+20: seconds; cost: dollars; the rest a count, per run for failures, tool_failures and stalls). Figures: wall, model, tools, idle, tool:KIND, tokens, input_tokens, output_tokens, cost, model_calls, tool_calls, failures, tool_failures, stalls."`
	Base   string   `arg:"" help:"The runs to compare with: a --summary-json file (one or many runs) or a recording."`
	New    string   `arg:"" help:"The runs to compare: a --summary-json file or a recording."`
}

// Run compares; a wrong price file is unreadable input (exit 2).
func (r *compareCmd) Run(status *int) error {
	s, problems := settings.Load(settings.Flags{Figures: r.Figures}, os.Getenv)
	if problems != nil {
		fmt.Fprintf(os.Stderr, "cursor-otel: %v\n", problems)
		*status = compare.StatusUnreadable
		return nil
	}
	*status = compare.Run(compare.Config{Base: r.Base, New: r.New, FailIf: r.FailIf, Prices: s.Prices, StallAfter: s.StallThreshold, Stdout: os.Stdout, Stderr: os.Stderr})
	return nil
}

type flushCmd struct {
	settings.Redaction
	settings.Delivery

	Redirect bool   `help:"Also send the sessions kept for another collector (another address, protocol or credentials) to the one set now. Without it they wait for their own."`
	List     bool   `help:"List what is kept, by destination (count, age, size), and send nothing."`
	Discard  string `placeholder:"DEST" help:"Drop what is kept for DEST, as --list shows it (its ID, or its address), and say how many sessions went; send nothing."`
}

// Run builds what the hooks recorded and not yet built, then delivers
// what earlier runs kept; or lists, or discards, as asked.
func (f *flushCmd) Run(status *int) error {
	s, problems := settings.Load(settings.Flags{Redaction: f.Redaction, Delivery: f.Delivery}, os.Getenv)
	if problems != nil {
		fmt.Fprintf(os.Stderr, "cursor-otel: %v\n", problems)
		*status = statusUsage
		return nil
	}
	fc := flush.Config{Settings: s, Getenv: os.Getenv, Environ: os.Environ(), Stdout: os.Stdout, Stderr: os.Stderr, Redirect: f.Redirect}
	*status = flush.Command(context.Background(), fc, conversation.DefaultDir(os.Environ()), flush.Asked{List: f.List, Discard: f.Discard})
	return nil
}

type versionCmd struct{}

func (versionCmd) Run() error {
	_, err := fmt.Printf("cursor-otel %s\n", version.Read().Long())
	return err
}
