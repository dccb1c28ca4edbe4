// Package wrap is cursor-otel's wrap mode: it runs cursor-agent as if
// nothing stood between it and the user, and traces the stream of events
// it prints. Its rules are the contract's "Wrap mode", "Output formats"
// and "Never in the way": the agent's stdout, stderr and exit status are
// its own, whatever goes wrong in cursor-otel.
package wrap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/agent"
	"github.com/cursor-otel/cursor-otel/internal/conversation"
	"github.com/cursor-otel/cursor-otel/internal/envlist"
	"github.com/cursor-otel/cursor-otel/internal/harness"
	"github.com/cursor-otel/cursor-otel/internal/metrics"
	"github.com/cursor-otel/cursor-otel/internal/oneline"
	"github.com/cursor-otel/cursor-otel/internal/pricing"
	"github.com/cursor-otel/cursor-otel/internal/redact"
	"github.com/cursor-otel/cursor-otel/internal/safe"
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/internal/steplog"
	"github.com/cursor-otel/cursor-otel/parse"
	"github.com/cursor-otel/cursor-otel/spanmap"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// Config is one run of wrap mode.
type Config struct {
	Settings settings.Settings
	// Problems is what is wrong with the settings, if anything: the agent
	// then runs untraced, and one line says why.
	Problems error
	Args     []string   // cursor-agent's arguments
	Environ  []string   // the environment, NAME=value
	Self     agent.Self // cursor-otel, which Find skips
	Stdin    *os.File
	Stdout   *os.File
	Stderr   *os.File
	// Exec replaces cursor-otel with the agent, for a run not traced;
	// agent.Exec when nil. (A test runs the agent instead.)
	Exec func(path string, args, env []string) error
	// DeliverKept starts delivering, in the background, what earlier runs
	// kept, if anything is; an ACP session calls it once the agent runs.
	// (A traced run looks at the spool itself, and starts Deliverer when
	// it holds sessions for the collector.) Nil starts nothing.
	DeliverKept func()
	// Deliverer starts the background delivery for the run to hand its
	// last spans over to (tracer.Config.Deliverer). Nil hands nothing over.
	Deliverer func()
	// ACP runs an editor's ACP session with the agent found at path (its
	// environment env), for a command line whose subcommand is acp; nil
	// runs it as any other subcommand.
	ACP func(ctx context.Context, path string, env []string, inv agent.Invocation) int
	// NotFound says, on stderr, that no agent was found: line is the
	// error, to which it may add the usage or a hint. Nil prints line.
	NotFound func(stderr io.Writer, line string)
}

func (c *Config) getenv(key string) string { return envlist.Get(c.Environ, key) }

// Exit statuses of cursor-otel's own, where the agent did not run.
const (
	statusNotFound  = 127 // no agent to run, or cursor-otel found itself
	statusCannotRun = 126 // found and not started
	// statusOverBudget: the agent succeeded, but a run cost more than
	// --max-budget-usd, or its cost cannot be known.
	statusOverBudget = 3
	// statusBadGuard: a guard setting (the budget) is malformed, and the
	// agent was not started.
	statusBadGuard = 2
)

// session attributes wrap mode adds.
const (
	outputFormat       = attribute.Key("cursor.output_format")
	traceparentIgnored = attribute.Key("cursor.traceparent_ignored")
)

// say prints what cursor-otel has to say, in one line, unless --quiet.
func (c *Config) say(notes ...string) {
	if line := oneline.Join(notes...); line != "" && !c.Settings.Quiet {
		fmt.Fprintln(c.Stderr, line)
	}
}

// Run runs cursor-agent and returns the status to exit with.
func Run(ctx context.Context, c Config) int {
	say := c.say
	if guard := settings.Guard(c.Problems); guard != nil {
		// Even with --quiet: running without the guard would spend what
		// the user meant to cap.
		fmt.Fprintln(c.Stderr, oneline.Join(guard.Error(), "cursor-agent not started: a budget is a guard"))
		return statusBadGuard
	}
	depth := chainDepth(c.Environ)
	if depth >= maxDepth {
		say(fmt.Sprintf("cursor-otel is running itself as cursor-agent, %d deep; set CURSOR_OTEL_AGENT to the real cursor-agent", depth))
		return statusNotFound
	}
	path, err := agent.Find(c.Settings.Agent, c.getenv("PATH"), c.Self)
	if err != nil {
		// Even with --quiet: the agent did not run, and this says why.
		if c.NotFound != nil {
			c.NotFound(c.Stderr, oneline.Join(err.Error()))
		} else {
			fmt.Fprintln(c.Stderr, oneline.Join(err.Error()))
		}
		return statusNotFound
	}
	env := withDepth(c.Environ, depth+1)

	inv := agent.Parse(c.Args)
	interactive := agent.IsTerminal(c.Stdin) && agent.IsTerminal(c.Stdout)
	if inv.ACP() && c.Problems == nil && c.ACP != nil {
		return c.ACP(ctx, path, append(env, conversation.StreamTraced+"=1"), inv)
	}
	p := planRun(inv, interactive, c.Settings.Rewrite)
	if c.Problems != nil || !p.traced {
		if c.Problems != nil {
			say(c.Problems.Error(), "running cursor-agent untraced")
		}
		exec := c.Exec
		if exec == nil {
			exec = agent.Exec
		}
		err := exec(path, c.Args, env)
		fmt.Fprintln(c.Stderr, oneline.Join(err.Error()))
		return statusCannotRun
	}
	return traced(ctx, c, path, env, inv, p)
}

// traced runs the agent with its stdout traced. The agent starts first:
// all it needs of the trace is its session's span context, for its
// TRACEPARENT, and that is reserved without the SDK. The SDK, the
// exporter's connection, the redactor and the reports are set up while
// the agent runs, and the agent's output waits for the tracer meanwhile
// (queued, never held back from the user).
func traced(ctx context.Context, c Config, path string, env []string, inv agent.Invocation, p plan) int {
	parent, valid := tracer.ParentFromEnv(ctx, c.getenv)
	sc := tracer.Reserve(parent, c.getenv, spanmap.RootName)
	began := time.Now()
	proc, err := agent.Start(agent.Spec{
		Path: path, Args: p.args, Env: append(tracer.ChildEnv(trace.ContextWithSpanContext(parent, sc), env), conversation.StreamTraced+"=1"),
		Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr,
		Discard: p.render != "",
	})
	steplog.Mark("agent started")
	r := setUp(ctx, c, path, inv, p, parent, sc, valid)
	// The session began before the agent did: it covers the agent's
	// start-up, and the agent's environment names it as the parent of
	// anything instrumented the agent runs.
	r.rec.Begin(sc, began, r.attrs...)
	steplog.Mark("set up")
	if err != nil {
		fmt.Fprintln(c.Stderr, oneline.Join(fmt.Sprintf("start %s: %v", path, unwrapAll(err))))
		code := statusCannotRun
		r.rec.Finish(spanmap.End{Time: time.Now(), ExitCode: &code, NoStream: true})
		_, _ = r.h.Close(ctx)
		r.turns.wait()
		return statusCannotRun
	}
	return r.follow(ctx, c, proc, p)
}

// recording is a traced run's tracing, set up while the agent runs.
type recording struct {
	h        *harness.Harness
	s        settings.Settings
	redactor *redact.Redactor
	prov     *tracer.Provider
	rec      *spanmap.Stream
	turns    *earlyTurns
	attrs    []attribute.KeyValue // the session's, from the command line and environment
	notes    []string             // what to say at the end
}

// setUp makes the run's tracing: the SDK and exporter, the reports and
// the span model, recording into the trace under parent.
func setUp(ctx context.Context, c Config, path string, inv agent.Invocation, p plan, parent context.Context, session trace.SpanContext, validParent bool) *recording {
	s := c.Settings
	// JSON reports are held until the flush says what became of the session.
	h := harness.Start(ctx, harness.Setup{Settings: s, Environ: c.Environ, Secrets: []string{inv.APIKey}, Deliverer: c.Deliverer, HoldJSON: true,
		Surface: metrics.SurfaceCLI})
	r := &recording{h: h, s: s, redactor: h.Redactor, prov: h.Provider, notes: h.Notes()}
	prov := h.Provider
	opts := h.Recording()
	// A resumed chat links to the conversation's last turn traced here,
	// and this session becomes its last turn.
	r.turns = newEarlyTurns(conversation.Store{Dir: conversation.DefaultDir(c.Environ)}, session)
	opts.Turns = r.turns
	r.rec = spanmap.NewStream(parent, prov.Tracer(), opts)
	args := agent.Parse(p.args)
	var prompt []int
	if !s.CaptureContent {
		prompt = args.Prompt
	}
	// The conversation resumed is an identifier: a variable whose name
	// says secret holding it does not mask it here (another rule may).
	r.attrs = []attribute.KeyValue{spanmap.CommandLine.String(r.redactor.Except(args.Resume).Redact(commandLine(path, p.args, prompt)))}
	if tp := c.getenv("TRACEPARENT"); tp != "" && !validParent {
		// Not fatal, not worth a line on stderr: a note on the span.
		r.attrs = append(r.attrs, traceparentIgnored.String(r.redactor.Redact(tp)))
	}
	if p.format != "" {
		r.attrs = append(r.attrs, outputFormat.String(p.format))
	}
	return r
}

// follow traces the running agent's output until it exits, flushes the
// trace and returns the status to exit with.
func (r *recording) follow(ctx context.Context, c Config, proc *agent.Process, p plan) int {
	s, rec, prov, redactor, notes := r.s, r.rec, r.prov, r.redactor, r.notes
	// The spool, looked at once, while the agent runs: what earlier runs
	// kept for this collector is delivered in the background, and what
	// waits for another one is said at the end.
	if prov.LookAtSpool() && c.Deliverer != nil {
		c.Deliverer()
	}
	var waiting string
	if !c.Settings.Quiet {
		waiting = prov.WaitingNote()
	}
	steplog.Mark("spool looked at")
	// cursor-otel's own failure must never cost the user the agent's exit
	// status or output: tracing runs guarded, a panic in it becomes one
	// line; the rendering of json and text goes on without it.
	var render *renderer
	if p.render != "" {
		render = &renderer{out: c.Stdout, format: p.render}
	}
	var mergedTail *agent.Tail
	if proc.Merged() {
		mergedTail = agent.NewTail(4 << 10)
	}
	t := &streamTracer{rec: rec, render: render, tail: mergedTail, turns: r.turns, prices: s.Prices}
	traced := make(chan struct{})
	go func() {
		defer close(traced)
		out := proc.Output()
		if err := safe.Run(func() { t.trace(out) }); err != nil {
			t.broken = err
			_, _ = io.Copy(io.Discard, out) // release what the agent still writes
		}
	}()
	stalled := func() bool { return false }
	if s.StallTimeout > 0 {
		// Said at once, even with --quiet: the user should know why the
		// agent is ending.
		stalled = watchStalls(proc, s.StallTimeout, func(line string) { fmt.Fprintln(c.Stderr, oneline.Join(line)) })
	}
	// What the end of the run would do first is done now, while the
	// agent runs: the exporters' encoders made. On this goroutine, after
	// the set-up, not beside it: cursor-otel's own work must leave a
	// processor free for the goroutine that passes the agent's output on.
	// An agent that has exited (a short run) is not kept waiting for it.
	// The session's price is looked up as the stream names its model
	// (streamTracer), compiling only the patterns that model needs.
	if !proc.Exited() {
		prov.Warm()
	}
	steplog.Mark("warmed")
	exit := proc.Wait()
	steplog.At("agent exit", exit.At)
	steplog.Mark("wait returned")
	stoppedForStall := stalled()
	// From here the flush timeout runs: what tracing is left to do, and
	// the flush, cannot hold up exit longer, however slow the collector.
	prov.EndingAt(exit.At)
	<-traced
	steplog.Mark("output drained")
	broken := t.broken
	untraced := proc.Output().Untraced()
	if mergedTail != nil {
		exit.StderrTail = mergedTail.String()
	}
	if broken == nil {
		broken = safe.Run(func() {
			end := spanmap.End{Time: exit.At, ExitCode: &exit.Code, StderrTail: exit.StderrTail, UntracedBytes: untraced}
			if stoppedForStall {
				end.StallTimeout = s.StallTimeout
			}
			for _, sig := range exit.Signals {
				end.Signals = append(end.Signals, spanmap.Signal{Name: signalName(sig.Signal), At: sig.At})
			}
			end.Cancelled = userInterrupted(end.Signals, exit.Code)
			rec.Finish(end)
		})
	}
	steplog.Mark("spans made")
	if render != nil {
		render.finish(exit.Code == 0)
	}
	// The conversation's last turn is written while the collector answers
	// (the exports began as the session ended): waited for here, not after
	// the shutdown, its goroutine runs now rather than last.
	r.turns.wait()
	steplog.Mark("turn written")
	report, reportsErr := r.h.Close(ctx)
	steplog.Mark("shutdown returned")
	if broken != nil {
		notes = append(notes, fmt.Sprintf("%v; the trace is incomplete", broken))
	}
	if untraced > 0 {
		notes = append(notes, fmt.Sprintf("tracing fell behind the agent's output; %s of it not traced", oneline.Size(untraced)))
	}
	notes = append(notes, report.Warning(), waiting)
	if reportsErr != nil {
		notes = append(notes, reportsErr.Error())
	}
	status := exit.Code
	if over := rec.OverBudget(); len(over) > 0 && exit.Code == 0 {
		// Said even with --quiet: it is why the status is not the agent's.
		status = statusOverBudget
		budget := over[0] + "; exit 3 (--max-budget-usd)"
		if c.Settings.Quiet {
			notes = nil
		}
		notes = append(notes, budget)
		fmt.Fprintln(c.Stderr, redactor.Redact(oneline.Join(notes...)))
		return status
	}
	c.say(redactor.Redact(oneline.Join(notes...)))
	return status
}

// unwrapAll is the innermost cause: "no such file or directory", not the
// chain of operations that led to it.
func unwrapAll(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// signalName is SIGINT, SIGTERM, …
func signalName(sig os.Signal) string {
	name := sig.String()
	if s, ok := sigNames[name]; ok {
		return s
	}
	return name
}

// userInterruptedStatus is the exit status of an agent the person
// stopped with Ctrl-C (128 + SIGINT), told by the shell's convention.
const userInterruptedStatus = 130

// userInterrupted says the person interrupted the run: a SIGINT passed
// on to the agent, or the agent's exit status 130. The turn was
// cancelled, not failed (docs/trace.md).
func userInterrupted(signals []spanmap.Signal, code int) bool {
	if code == userInterruptedStatus {
		return true
	}
	for _, s := range signals {
		if s.Name == "SIGINT" {
			return true
		}
	}
	return false
}

var sigNames = map[string]string{"interrupt": "SIGINT", "terminated": "SIGTERM", "hangup": "SIGHUP", "quit": "SIGQUIT"}

// streamTracer records the stdout copy as it arrives, each event placed at
// the time its line came from the agent. If recording fails (a panic), it
// stops recording and goes on rendering.
type streamTracer struct {
	rec    *spanmap.Stream
	render *renderer   // json and text runs
	tail   *agent.Tail // stderr's lines, when they come in the stdout pipe
	broken error       // why recording stopped
	turns  *earlyTurns // told each conversation the stream names, to read its last turn now
	conv   string      // the last conversation told
	prices *pricing.Table
	priced string // the last model priced ahead
}

func (t *streamTracer) trace(out *agent.Output) {
	var opts []parse.Option
	if t.render != nil {
		opts = append(opts, parse.WithBlankLines())
	}
	dec := parse.NewDecoder(out, opts...)
	first := true
	for {
		ev, err := dec.Next()
		if err != nil {
			return // io.EOF: the agent closed its stdout
		}
		if first {
			steplog.At("first line", out.Arrival())
			first = false
		}
		if t.render != nil {
			t.render.line(ev, dec.Raw(), dec.Ending())
		}
		switch ev.(type) {
		case *parse.Blank:
			continue
		case *parse.Invalid:
			if t.tail != nil {
				_, _ = t.tail.Write(append(append([]byte(nil), dec.Raw()...), '\n'))
			}
		}
		if id := ev.Head().SessionID; id != "" && id != t.conv && t.turns != nil {
			t.conv = id
			t.turns.prefetch(id)
		}
		if init, ok := ev.(*parse.Init); ok && init.Model != "" && init.Model != t.priced && t.prices != nil {
			// Priced now, beside the agent: at the session's end the
			// quote is then the table's cached one (a lookup tries every
			// rule against several spellings: docs/performance.md,
			// "measured choices").
			t.priced = init.Model
			go func(model string) { _ = safe.Run(func() { t.prices.Quote(model) }) }(init.Model)
		}
		if t.broken == nil {
			t.broken = safe.Run(func() { t.rec.Record(ev, out.Arrival()) })
		}
	}
}
