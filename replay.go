package main

import (
	"context"
	"fmt"
	"io"
	"os"
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
	report := prov.Shutdown(ctx)
	if reports.err != nil {
		fmt.Fprintf(s.stderr, "cursor-otel: %v\n", reports.err)
		*status = 1
	}
	if msg := exportWarning(report); msg != "" {
		if report.UserEndpoint {
			*status = 1
			fmt.Fprintln(s.stderr, redactor.Redact(msg))
		} else if !c.Quiet {
			fmt.Fprintln(s.stderr, redactor.Redact(msg))
		}
	}
	return nil
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
	dec := parse.NewDecoder(r)
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("replay %s: %w", name, err)
		}
		rec.Record(ev, time.Time{})
	}
}
