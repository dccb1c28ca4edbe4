package main

import (
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/cursor-otel/cursor-otel/redact"
	"github.com/cursor-otel/cursor-otel/spanmap"
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

// tracing is how the SDK is set up. With content captured a span can weigh
// several values of MaxAttributeLength (arguments, result, messages), so
// batches are sized to keep every export under the receivers' limit.
func (c *cli) tracing() tracer.Config {
	cfg := tracer.Config{FlushTimeout: c.FlushTimeout, Version: buildVersion()}
	if c.CaptureContent {
		cfg.MaxSpanBytes = 4*max(c.MaxAttributeLength, 0) + 4<<10
	}
	return cfg
}
