package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
	"github.com/cursor-otel/cursor-otel/spanmap"
	"github.com/cursor-otel/cursor-otel/tracer"
	"github.com/cursor-otel/cursor-otel/tree"
)

type replayCmd struct {
	Files []string `arg:"" optional:"" name:"file" help:"Recorded stream-json files; - (or none) reads stdin."`
}

// Run replays each file as its own stream, prints each trace as a tree, and
// exports the traces. A file that cannot be read, or an export to an
// endpoint the user named that fails, makes the exit status 1.
func (r *replayCmd) Run(c *cli, s *streams, status *int) error {
	ctx := context.Background()
	tuneGC(os.Getenv)
	redactor, err := c.redactor()
	if err != nil {
		return err
	}
	reports := c.summaryFiles()
	cfg := c.tracing(redactor, reports)
	if !c.Quiet {
		cfg.Processors = append(cfg.Processors, tracer.OnTraceEnd(func(t tracer.Trace) { tree.Print(s.stdout, t.Spans, t.Finished) }))
	}
	prov, err := tracer.New(ctx, cfg)
	if err != nil {
		fmt.Fprintf(s.stderr, "cursor-otel: %s; replaying without export\n", redactor.Redact(err.Error()))
		prov, *status = tracer.NewNoExport(ctx, cfg), 1
	}
	files := r.Files
	if len(files) == 0 {
		files = []string{"-"}
	}
	for _, name := range files {
		if err := replayFile(ctx, prov.Tracer(), name, s.stdin, c.recording(redactor)); err != nil {
			fmt.Fprintf(s.stderr, "cursor-otel: %v\n", err)
			*status = 1
		}
	}
	// Errors (a summary not written, an export to a named endpoint that
	// failed) are said even with --quiet and make the status 1; a missing
	// default collector is a warning. All of it in one line, as wrap says it.
	report := prov.Shutdown(ctx)
	var notes []string
	if reports.err != nil {
		notes, *status = append(notes, reports.err.Error()), 1
	}
	if msg := exportWarning(report); msg != "" && (report.UserEndpoint || !c.Quiet) {
		notes = append(notes, msg)
		if report.UserEndpoint {
			*status = 1
		}
	}
	if line := oneLine(notes...); line != "" {
		fmt.Fprintln(s.stderr, redactor.Redact(line))
	}
	return nil
}

// tuneGC sets the garbage collector for replay, unless the user did with
// GOGC or GOMEMLIMIT. Replay is a batch job whose live heap is a few MiB
// (its state is per open span), so collecting at 5× that rather than 2×
// spends a fifth less CPU, and the memory limit bounds what that costs:
// peak RSS on a 200 MB stream went from 29 to 41 MiB, throughput from 460
// to 590 MB/s.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(32 << 20)
	}
}

// replayFile records one recorded stream, "-" being stdin.
func replayFile(ctx context.Context, t trace.Tracer, name string, stdin io.Reader, opts spanmap.Options) error {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		defer f.Close()
		r = f
	}
	rec := spanmap.NewRecorder(ctx, t, opts)
	defer rec.Finish(spanmap.End{})
	var decOpts []parse.Option
	if !opts.CaptureContent {
		decOpts = append(decOpts, parse.WithoutContent())
	}
	// Decoding runs ahead on a core of its own while this one records.
	for batch := range parse.DecodeAhead(ctx, r, decOpts...) {
		for _, ev := range batch.Events {
			rec.Record(ev, time.Time{})
		}
		if batch.Err != nil {
			return fmt.Errorf("replay %s: %w", name, batch.Err)
		}
	}
	return nil
}
