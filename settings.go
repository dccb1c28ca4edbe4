package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/cursor-otel/cursor-otel/ci"
	"github.com/cursor-otel/cursor-otel/internal/version"
	"github.com/cursor-otel/cursor-otel/redact"
	"github.com/cursor-otel/cursor-otel/spanmap"
	"github.com/cursor-otel/cursor-otel/summary"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// cli is cursor-otel's command line. Its flags are cursor-otel's own and
// come first; everything from the first argument that is not one of them
// is cursor-agent's (the hidden run command, the default). Every flag has
// its CURSOR_OTEL_* twin.
type cli struct {
	CaptureContent     bool          `help:"Also record the prompt, assistant and thinking text, tool arguments and results (redacted, truncated)." env:"CURSOR_OTEL_CAPTURE_CONTENT"`
	MaxAttributeLength int           `default:"16384" help:"The most bytes kept of one captured value; longer values are cut at a character boundary." env:"CURSOR_OTEL_MAX_ATTRIBUTE_LENGTH" placeholder:"BYTES"`
	Redact             []string      `help:"A regular expression for more text to redact (repeatable; its first group, if any, is kept)." env:"CURSOR_OTEL_REDACT" sep:"none" placeholder:"REGEX"`
	DefaultRedaction   bool          `default:"true" negatable:"" help:"Redact the built-in secret shapes: tokens, keys, passwords, credentials in URLs. Turn off for a trusted backend; the values of secret environment variables and of --api-key are redacted still." env:"CURSOR_OTEL_DEFAULT_REDACTION"`
	Quiet              bool          `help:"Print nothing of cursor-otel's own: no replay tree, no warning about an unreachable collector." env:"CURSOR_OTEL_QUIET"`
	FlushTimeout       time.Duration `default:"3s" help:"How long exporting may delay exit." env:"CURSOR_OTEL_FLUSH_TIMEOUT"`
	Agent              string        `help:"The cursor-agent to run: a path, or a name on PATH. Default: cursor-agent, then agent, on PATH." env:"CURSOR_OTEL_AGENT" placeholder:"PATH"`
	Summary            string        `help:"Append a Markdown report of each session to FILE (works with $GITHUB_STEP_SUMMARY)." env:"CURSOR_OTEL_SUMMARY" placeholder:"FILE"`
	SummaryJSON        string        `name:"summary-json" help:"Append the report's figures to FILE as one JSON object per session." env:"CURSOR_OTEL_SUMMARY_JSON" placeholder:"FILE"`
	TraceURL           string        `help:"Link to each trace from the report: a URL with {trace_id} in it, e.g. http://jaeger:16686/trace/{trace_id}." env:"CURSOR_OTEL_TRACE_URL" placeholder:"TEMPLATE"`

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

// redactor masks what the settings say, the secrets in the environment and
// the secret values given (an --api-key).
func (c *cli) redactor(secrets ...string) (*redact.Redactor, error) {
	var patterns []*regexp.Regexp
	for _, p := range c.Redact {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("--redact %q: %w", p, err)
		}
		patterns = append(patterns, re)
	}
	return redact.New(redact.Options{
		Literals:   append(redact.SecretsInEnviron(os.Environ()), secrets...),
		Patterns:   patterns,
		NoBuiltins: !c.DefaultRedaction,
	}), nil
}

// recording is what the span model records.
func (c *cli) recording(r *redact.Redactor) spanmap.Options {
	return spanmap.Options{CaptureContent: c.CaptureContent, MaxContent: c.MaxAttributeLength, Redact: r.Redact}
}

// tracing is how the SDK is set up: the CI run, if any, described in the
// resource (redacted: a clone URL can carry a token), and a summary of each
// session when one is asked for. With content captured a span can weigh
// several values of MaxAttributeLength (arguments, result, messages), so
// batches are sized to keep every export under the receivers' limit.
func (c *cli) tracing(r *redact.Redactor, reports *summaryFiles) tracer.Config {
	cfg := tracer.Config{FlushTimeout: c.FlushTimeout, Version: version.Read().String()}
	for _, a := range ci.Detect(os.Getenv) {
		cfg.Resource = append(cfg.Resource, attribute.String(string(a.Key), r.Redact(a.Value.AsString())))
	}
	if c.CaptureContent {
		cfg.MaxSpanBytes = 4*max(c.MaxAttributeLength, 0) + 4<<10
	}
	if reports != nil && (reports.markdown != "" || reports.json != "") {
		cfg.Processors = append(cfg.Processors, tracer.OnTraceEnd(reports.write))
	}
	return cfg
}

// summaryFiles appends a report of each finished session to the files the
// settings name, keeping the first error to say once.
type summaryFiles struct {
	markdown, json, traceURL string
	mu                       sync.Mutex
	err                      error
}

func (c *cli) summaryFiles() *summaryFiles {
	return &summaryFiles{markdown: c.Summary, json: c.SummaryJSON, traceURL: c.TraceURL}
}

func (f *summaryFiles) write(t tracer.Trace) {
	r, ok := summary.FromTrace(t.Spans)
	if !ok {
		return
	}
	if f.traceURL != "" {
		r.TraceURL = strings.ReplaceAll(f.traceURL, "{trace_id}", r.TraceID)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, out := range []struct {
		path string
		data func() []byte
	}{{f.markdown, func() []byte { return []byte(r.Markdown()) }}, {f.json, r.JSON}} {
		if out.path == "" {
			continue
		}
		if err := appendFile(out.path, out.data()); err != nil && f.err == nil {
			f.err = fmt.Errorf("write the summary: %w", err)
		}
	}
}

// appendFile appends data to path: $GITHUB_STEP_SUMMARY gathers every step's.
func appendFile(path string, data []byte) error {
	file, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := file.Write(data); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}
