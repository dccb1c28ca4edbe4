package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/cursor-otel/cursor-otel/agent"
	"github.com/cursor-otel/cursor-otel/parse"
	"github.com/cursor-otel/cursor-otel/redact"
	"github.com/cursor-otel/cursor-otel/spanmap"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// runCmd is wrap mode: cursor-agent run with the user's arguments, traced.
type runCmd struct {
	Args []string `arg:"" optional:"" passthrough:""`
}

// outputFormat names the format the user asked for; traceparentIgnored
// holds a TRACEPARENT that was not valid, and so not used.
const (
	outputFormat       = attribute.Key("cursor.output_format")
	traceparentIgnored = attribute.Key("cursor.traceparent_ignored")
)

// plan is how one run is carried out.
type plan struct {
	args   []string // what cursor-agent is given
	traced bool     // its stdout is a stream-json to trace
	render string   // json or text: cursor-otel prints this from the stream; "" passes stdout through
	format string   // what the user asked for
}

// planRun decides how to run cursor-agent: a stream-json run is passed
// through and traced; a json or text run in print mode (given, or inferred
// from a stdin or stdout that is not a terminal) is run as stream-json and
// rendered here, so it is traced too, unless CURSOR_OTEL_REWRITE=off;
// interactive runs and subcommands run untouched.
func planRun(inv agent.Invocation, interactive, rewrite bool) plan {
	p := plan{args: inv.Args, format: inv.Format}
	if inv.Untouched() || (!inv.Print && interactive) {
		return p
	}
	switch inv.Format {
	case agent.FormatStreamJSON:
		p.traced = true
	case "", agent.FormatText, agent.FormatJSON:
		if p.format == "" {
			p.format = agent.FormatText // cursor-agent's default in print mode
		}
		if rewrite {
			p.args, p.traced, p.render = inv.WithFormat(agent.FormatStreamJSON), true, p.format
		}
	}
	return p
}

func (r *runCmd) Run(c *cli, s *streams, status *int) error {
	ctx := context.Background()
	args := r.Args
	if len(args) > 0 && args[0] == "--" {
		args = args[1:] // the separator route puts before cursor-agent's arguments
	}
	self, _ := os.Executable()
	path, err := agent.Find(c.Agent, os.Getenv("PATH"), self)
	if err != nil {
		fmt.Fprintf(s.stderr, "cursor-otel: %v\n", err)
		*status = 127
		return nil
	}
	inv := agent.Parse(args)
	interactive := agent.IsTerminal(s.stdin) && agent.IsTerminal(s.stdout)
	p := planRun(inv, interactive, os.Getenv("CURSOR_OTEL_REWRITE") != "off")

	// A setting that is wrong never stops the agent: the run goes on and
	// nothing is exported (not even with a redaction pattern missing).
	reports := c.summaryFiles()
	redactor, err := c.redactor(inv.APIKey)
	var prov *tracer.Provider
	if err != nil {
		// Without the pattern nothing may leave: no export, no summary.
		redactor, prov = redact.New(redact.Options{}), tracer.NewNoExport(ctx, tracer.Config{})
	} else {
		cfg := c.tracing(redactor, reports)
		if prov, err = tracer.New(ctx, cfg); err != nil {
			prov = tracer.NewNoExport(ctx, cfg)
		}
	}
	if err != nil && !c.Quiet {
		fmt.Fprintf(s.stderr, "cursor-otel: %s; running without export\n", redactor.Redact(err.Error()))
	}
	parent, valid := tracer.ParentFromEnv(ctx, os.Getenv)
	rec := spanmap.NewRecorder(parent, prov.Tracer(), c.recording(redactor))
	attrs := []attribute.KeyValue{spanmap.CommandLine.String(redactor.Redact(commandLine(path, p.args)))}
	if tp := os.Getenv("TRACEPARENT"); tp != "" && !valid {
		// Not fatal, not worth a line on stderr: a note on the span.
		attrs = append(attrs, traceparentIgnored.String(redactor.Redact(tp)))
	}
	if p.format != "" {
		attrs = append(attrs, outputFormat.String(p.format))
	}
	// The session begins before the agent does: it covers the agent's
	// start-up, and the agent's environment names it as the parent of
	// anything instrumented the agent runs.
	session := rec.Begin(time.Now(), attrs...)

	proc, err := agent.Start(agent.Spec{
		Path: path, Args: p.args, Env: tracer.ChildEnv(session, os.Environ()),
		Stdin: s.stdin, Stdout: s.stdout, Stderr: s.stderr,
		Untouched: !p.traced, Discard: p.render != "",
	})
	if err != nil {
		fmt.Fprintf(s.stderr, "cursor-otel: start %s: %v\n", path, errors.Unwrap(err))
		*status = 126
		code := 126
		rec.Finish(spanmap.End{Time: time.Now(), ExitCode: &code, NoStream: true})
		prov.Shutdown(ctx)
		return nil
	}

	// cursor-otel's own failure must never cost the user the agent's exit
	// status: tracing runs guarded, a panic in it becomes one line.
	var result *parse.Result
	var resultLine []byte
	var broken error
	traced := make(chan struct{})
	go func() {
		defer close(traced)
		if out := proc.Output(); out != nil {
			if broken = guarded(func() { result, resultLine = traceStream(rec, out) }); broken != nil {
				_, _ = io.Copy(io.Discard, out) // release what the agent still writes
			}
		}
	}()
	exit := proc.Wait()
	// From here the flush timeout runs: what tracing is left to do, and
	// the flush, cannot hold up exit longer, however slow the collector.
	prov.EndingAt(exit.At)
	<-traced
	var untraced int64
	if out := proc.Output(); out != nil {
		untraced = out.Untraced()
	}
	if broken == nil {
		broken = guarded(func() {
			rec.Finish(spanmap.End{Time: exit.At, ExitCode: &exit.Code, Interrupted: exit.Interrupted,
				StderrTail: exit.StderrTail, NoStream: !p.traced, UntracedBytes: untraced})
		})
	}

	// What the user asked for, as cursor-agent prints it: the result event
	// for json, its text for text; nothing on stdout for a failed run.
	if p.render != "" && exit.Code == 0 && result != nil {
		if p.render == agent.FormatJSON {
			_, _ = s.stdout.Write(append(resultLine, '\n'))
		} else {
			_, _ = io.WriteString(s.stdout, result.Text+"\n")
		}
	}
	report := prov.Shutdown(ctx)
	if !c.Quiet {
		var notes []string
		if broken != nil {
			notes = append(notes, fmt.Sprintf("%v; the trace is incomplete", broken))
		}
		if untraced > 0 {
			notes = append(notes, fmt.Sprintf("tracing fell behind the agent's output; %s of it not traced", size(untraced)))
		}
		notes = append(notes, exportWarning(report))
		if reports.err != nil {
			notes = append(notes, reports.err.Error())
		}
		if line := oneLine(notes...); line != "" {
			fmt.Fprintln(s.stderr, redactor.Redact(line))
		}
	}
	*status = exit.Code
	return nil
}

// guarded runs fn, turning a panic into an error.
func guarded(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	fn()
	return nil
}

// traceStream records the stdout copy as it arrives, each event placed at
// the time its line came from the agent, and returns the result event with
// its line.
func traceStream(rec *spanmap.Recorder, out *agent.Output) (*parse.Result, []byte) {
	var result *parse.Result
	var line []byte
	dec := parse.NewDecoder(out)
	for {
		ev, err := dec.Next()
		if err != nil {
			return result, line // io.EOF: the agent closed its stdout
		}
		rec.Record(ev, out.Arrival())
		if r, ok := ev.(*parse.Result); ok {
			result, line = r, bytes.Clone(dec.Raw())
		}
	}
}

// commandLine renders a command as one line a shell would read back.
func commandLine(path string, args []string) string {
	parts := make([]string, 0, len(args)+1)
	for _, a := range append([]string{path}, args...) {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`|&;<>()*?[]#~") {
			a = strconv.Quote(a)
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
