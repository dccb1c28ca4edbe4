// Package replay is cursor-otel's replay mode: recorded stream-json files
// turned into traces, printed as trees and exported.
package replay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/harness"
	"github.com/cursor-otel/cursor-otel/internal/oneline"
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/internal/tree"
	"github.com/cursor-otel/cursor-otel/parse"
	"github.com/cursor-otel/cursor-otel/spanmap"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// Config is one run of replay.
type Config struct {
	Settings settings.Settings
	Files    []string // recordings; "-" (or none) is stdin
	Now      bool     // move the recordings to the present (replay --now)
	// Keep keeps in the spool what the collector did not take, as a
	// wrapped run does (replay --keep); without it nothing is kept: the
	// files are the copy, and replay says to run it again.
	Keep    bool
	Environ []string
	Getenv  func(string) string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	// DeliverKept starts delivering, in the background, what earlier runs
	// kept. Nil starts nothing.
	DeliverKept func()
	// Deliverer starts the background delivery for the run to hand its
	// last spans over to (tracer.Config.Deliverer). Nil hands nothing over.
	Deliverer func()
}

// Run replays each file as its own stream, prints each trace as a tree, and
// exports the traces. It returns the exit status: 1 when a file cannot be
// read or holds no line of the stream, a report cannot be written, or an
// export to an endpoint the user named fails.
func Run(ctx context.Context, c Config) int {
	longer := memoryLimit(c.Getenv)
	if c.DeliverKept != nil {
		c.DeliverKept()
	}
	s := c.Settings
	status := 0
	files := c.Files
	if len(files) == 0 {
		files = []string{"-"}
	}
	files, stdin, noStreams := withStreams(files, c.Stdin)
	for _, err := range noStreams {
		fmt.Fprintln(c.Stderr, oneline.Join(err.Error()))
		status = 1
	}
	if len(files) == 0 {
		return status // nothing to replay: nothing set up, nothing sent
	}
	var h *harness.Harness // the waiting line, said while h closes, is redacted by it
	h = harness.Start(ctx, harness.Setup{Settings: s, Environ: c.Environ, Getenv: c.Getenv, Deliverer: c.Deliverer, HoldJSON: true,
		Configure: func(cfg *tracer.Config) {
			cfg.KeepNothing = !c.Keep
			// No one waits on replay but for its export: a collector
			// that keeps answering is waited for.
			cfg.WaitWhileAnswered = true
			if !s.Quiet {
				cfg.Processors = append(cfg.Processors, tracer.OnTraceEnd(func(t tracer.Trace) { tree.Print(c.Stdout, t.Spans, t.Finished) }))
				cfg.Waiting = func(w tracer.Waiting) { fmt.Fprintln(c.Stderr, h.Redactor.Redact(waitingLine(w))) }
			}
		}})
	redactor, prov := h.Redactor, h.Provider
	if h.ExportErr != nil {
		fmt.Fprintln(c.Stderr, oneline.Join(redactor.Redact(h.ExportErr.Error()), "replaying without export"))
		status = 1
	}
	if h.MetricsErr != nil {
		fmt.Fprintln(c.Stderr, oneline.Join(redactor.Redact(h.MetricsErr.Error()), "no metrics"))
	}
	opts := h.Recording()
	opts.Redact = remember(opts.Redact)
	opts.MakeBeside = makeBeside
	if c.Now {
		shift, buffered, err := toPresent(ctx, files, stdin, time.Now())
		if err != nil {
			fmt.Fprintln(c.Stderr, oneline.Join(redactor.Redact(err.Error())))
			status = 1
		}
		opts.Shift = shift
		if buffered != nil {
			stdin = bytes.NewReader(buffered)
		}
	}
	var overBudget []string
	for _, name := range files {
		over, err := replayFile(ctx, prov.Tracer(), name, stdin, opts, longer)
		if err != nil {
			fmt.Fprintln(c.Stderr, oneline.Join(redactor.Redact(err.Error())))
			status = 1
		}
		overBudget = append(overBudget, over...)
	}
	// Errors (a report not written, an export to a named endpoint that
	// failed) are said even with --quiet and make the status 1; a missing
	// default collector is a warning. All of it in one line.
	report, reportsErr := h.Close(ctx)
	if !c.Keep {
		report.Again = again(files, s.Spool != "")
	}
	var notes []string
	if err := reportsErr; err != nil {
		notes, status = append(notes, err.Error()), 1
	}
	if msg := report.Warning(); msg != "" && (report.UserEndpoint || !s.Quiet) {
		notes = append(notes, msg)
		if report.UserEndpoint {
			status = 1
		}
	}
	if !s.Quiet {
		notes = append(notes, prov.WaitingNote())
	}
	if len(overBudget) > 0 && status == 0 {
		status = statusOverBudget
		notes = append(notes, fmt.Sprintf("%d of the sessions over the budget, the first: %s; exit 3 (--max-budget-usd)", len(overBudget), overBudget[0]))
	}
	if line := oneline.Join(notes...); line != "" {
		fmt.Fprintln(c.Stderr, redactor.Redact(line))
	}
	return status
}

// again says how to send again the spans of files that neither went
// nor were kept; canKeep says --keep would keep them.
func again(files []string, canKeep bool) string {
	what := "replay the file again"
	switch {
	case len(files) > 1:
		what = "replay the files again"
	case files[0] == "-":
		what = "replay the recording again"
	}
	what += " once a collector listens"
	if canKeep {
		what += " (or with --keep, to keep them for cursor-otel flush)"
	}
	return what
}

// makeBeside is how many spans wait for the SDK while replay records the
// next events (spanmap.Options.MakeBeside): a span's draft is a few
// hundred bytes and its attributes, so a burst takes a few MB at most.
const makeBeside = 256

// statusOverBudget: a session cost more than --max-budget-usd, or its
// cost cannot be known.
const statusOverBudget = 3

// replayFile records one recorded stream, "-" being stdin, and says why
// each session over the budget, if any, is.
// longer, if not nil, hears of each line longer than those before it.
func replayFile(ctx context.Context, t trace.Tracer, name string, stdin io.Reader, opts spanmap.Options, longer func(int)) (overBudget []string, err error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		defer f.Close()
		r = f
	}
	rec := spanmap.NewStream(ctx, t, opts)
	defer func() {
		rec.Finish(spanmap.End{})
		overBudget = rec.OverBudget()
	}()
	var decOpts []parse.Option
	if !opts.CaptureContent {
		// Without content a run of thinking deltas is one event, and no
		// stall goes unseen within it.
		decOpts = append(decOpts, parse.WithoutContent(), parse.WithFoldedDeltas(opts.StallAfter))
	}
	if longer != nil {
		decOpts = append(decOpts, parse.WithLongLines(longer))
	}
	// Decoding runs ahead, on every core, while this goroutine records.
	for batch := range parse.DecodeAhead(ctx, r, decOpts...) {
		for _, ev := range batch.Events {
			rec.Record(ev, time.Time{})
		}
		if batch.Err != nil {
			return nil, fmt.Errorf("replay %s: %w", name, batch.Err)
		}
	}
	return nil, nil
}
