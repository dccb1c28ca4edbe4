// Package settings reads cursor-otel's settings: each from its flag, else
// its CURSOR_OTEL_* environment twin, else its default. A value that is
// wrong is a Problem, said in words a user acts on; it is never a reason to
// stop the agent (the caller runs it untraced).
package settings

import (
	"fmt"
	"strings"

	"github.com/alecthomas/kong"
)

// Flags are cursor-otel's own flags as kong parses them: the text given,
// never a typed value, so that parsing a command line never fails on a
// value. Load reads them, and their environment twins, into Settings.
// All of them are wrap mode's; each other command takes the groups below
// that it uses, and no other (see main).
type Flags struct {
	Content
	Redaction
	Output
	Delivery
	Running
	Reports
	Figures
	Budget
}

// Capture is whether content is recorded: a hook's too.
type Capture struct {
	CaptureContent Switch `help:"Also record the prompt, assistant and thinking text, tool arguments and results (redacted, truncated). ($CURSOR_OTEL_CAPTURE_CONTENT)"`
}

// Content is what a trace records of the session's text.
type Content struct {
	Capture
	MaxAttributeLength string `help:"The most bytes kept of one captured value (16384, 16k, 1MiB); longer values are cut at a character boundary. ($CURSOR_OTEL_MAX_ATTRIBUTE_LENGTH)" placeholder:"BYTES"`
}

// Redaction is what is masked, wherever text is recorded or printed.
type Redaction struct {
	Redact           []string `help:"A regular expression for more text to redact (repeatable; its first group, if any, is kept). ($CURSOR_OTEL_REDACT, one expression)" sep:"none" placeholder:"REGEX"`
	DefaultRedaction Switch   `negatable:"" help:"Redact the built-in secret shapes (on by default): tokens, keys, passwords, credentials in URLs. Turn off for a trusted backend; the values of secret environment variables and of --api-key are redacted still. ($CURSOR_OTEL_DEFAULT_REDACTION)"`
}

// Output is what cursor-otel prints and how spans leave.
type Output struct {
	Quiet     Switch `help:"Print nothing of cursor-otel's own: no replay tree, no warning about an unreachable collector. ($CURSOR_OTEL_QUIET)"`
	LiveSpans Switch `help:"Export each span as it ends, so that a running session shows in a trace viewer as it goes. Off (the default), a session's spans are exported together when it ends, so that a tail-sampling collector sees it whole. ($CURSOR_OTEL_LIVE_SPANS)"`
}

// Delivery bounds how long exporting may take.
type Delivery struct {
	FlushTimeout string `help:"How long exporting may delay exit: 3s, 500ms, or a number of seconds. ($CURSOR_OTEL_FLUSH_TIMEOUT)" placeholder:"DURATION"`
}

// Running is the agent wrap mode runs, and when it is stopped.
type Running struct {
	Agent        string `help:"The cursor-agent to run: a path, or a name on PATH. Default: cursor-agent, then agent, on PATH. ($CURSOR_OTEL_AGENT)" placeholder:"PATH"`
	StallTimeout string `help:"Stop the agent (TERM, then KILL) after this long without output, and end its trace saying so (off by default). ($CURSOR_OTEL_STALL_TIMEOUT)" placeholder:"DURATION"`
}

// Reports are the files each session is reported to.
type Reports struct {
	Summary     string `help:"Append a Markdown report of each session to FILE; $GITHUB_STEP_SUMMARY, even unexpanded, is the running GitHub Actions step's summary. ($CURSOR_OTEL_SUMMARY)" placeholder:"FILE"`
	SummaryJSON string `name:"summary-json" help:"Append the report's figures to FILE as one JSON object per session. ($CURSOR_OTEL_SUMMARY_JSON)" placeholder:"FILE"`
	TraceURL    string `help:"Link to each trace from the report: a URL with {trace_id} in it, e.g. http://jaeger:16686/trace/{trace_id}. ($CURSOR_OTEL_TRACE_URL)" placeholder:"TEMPLATE"`
}

// Figures are how a session is measured: its cost and its stalls.
type Figures struct {
	Prices         string `help:"A JSON file of model prices, over the built-in ones: {\"models\": {\"NAME-OR-GLOB\": {\"input\": 3, \"output\": 15, \"cache_read\": 0.3, \"cache_write\": 3.75}}}, USD per million tokens. ($CURSOR_OTEL_PRICES)" placeholder:"FILE"`
	StallThreshold string `help:"A gap this long without output from the agent is a stall, recorded on the trace and in the summary (default 3m; off for none). ($CURSOR_OTEL_STALL_THRESHOLD)" placeholder:"DURATION"`
}

// Budget is the cost a run may reach (a guard: see GuardError).
type Budget struct {
	MaxBudgetUSD string `name:"max-budget-usd" help:"Exit 3 when a run that succeeded cost more than this many US dollars (estimated), or its cost cannot be known; the session is marked budget_exceeded. ($CURSOR_OTEL_MAX_BUDGET_USD)" placeholder:"USD"`
}

// Switch is an on/off flag as given: --flag, --flag=VALUE, --no-flag.
type Switch struct {
	Text string // "true" for a bare --flag, "false" for --no-flag, else as written
	Set  bool
}

// Decode takes a bare --flag as on and keeps a written value as it is, to
// be read (leniently) by Load.
func (s *Switch) Decode(ctx *kong.DecodeContext) error {
	s.Set, s.Text = true, "true"
	if ctx.Scan.Peek().Type != kong.FlagValueToken {
		return nil
	}
	token := ctx.Scan.Pop()
	switch v := token.Value.(type) {
	case bool:
		s.Text = fmt.Sprint(v)
	case string:
		s.Text = v
	default:
		s.Text = fmt.Sprint(v)
	}
	return nil
}

// IsBool makes kong take a bare --flag without a value.
func (*Switch) IsBool() bool { return true }

// envName is a flag's environment twin: --flush-timeout is
// CURSOR_OTEL_FLUSH_TIMEOUT.
func envName(flag string) string {
	return "CURSOR_OTEL_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}
