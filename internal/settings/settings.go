package settings

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/pricing"
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/internal/statedir"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// Settings are cursor-otel's settings, read.
type Settings struct {
	CaptureContent     bool
	MaxAttributeLength int // bytes; DefaultMaxAttributeLength when not set
	Redact             []*regexp.Regexp
	DefaultRedaction   bool
	Quiet              bool
	LiveSpans          bool // export each span as it ends, not each session whole
	FlushTimeout       time.Duration
	Agent              string
	Summary            string
	SummaryJSON        string
	TraceURL           string
	Prices             *pricing.Table // the built-in prices, under a user's file if one is named
	MaxBudgetUSD       float64        // 0: no budget
	StallThreshold     time.Duration  // a longer gap without output is a stall; 0: none are recorded
	StallTimeout       time.Duration  // stop the agent after this long without output; 0: never
	// Rewrite runs json and text as stream-json, to trace them
	// (CURSOR_OTEL_REWRITE, which has no flag).
	Rewrite bool
	// Spool is where sessions the collector did not take are kept, ""
	// for nowhere (CURSOR_OTEL_SPOOL=off); SpoolMax bounds it, in bytes
	// (CURSOR_OTEL_SPOOL_MAX). Neither has a flag: a later run, of any
	// mode, must find the same spool.
	Spool    string
	SpoolMax int64
	// MetricsUser: whether and how the metrics name the person
	// (CURSOR_OTEL_METRICS_USER, CURSOR_OTEL_METRICS_USER_SALT).
	MetricsUser MetricsUser
}

// The defaults of the settings that have one.
const (
	DefaultMaxAttributeLength = 16 << 10
	DefaultFlushTimeout       = 3 * time.Second
	DefaultStallThreshold     = 3 * time.Minute
)

// Problems are the settings that are wrong, each saying what to write.
type Problems []error

// Unwrap gives each problem, for errors.As.
func (p Problems) Unwrap() []error { return p }

// GuardError is a wrong setting that must stop the run rather than let
// the agent run without it: a budget is a guard, so it fails closed.
type GuardError struct{ Err error }

func (g GuardError) Error() string { return g.Err.Error() }
func (g GuardError) Unwrap() error { return g.Err }

// Guard is the problem among problems that stops the run, nil when none
// does.
func Guard(problems error) error {
	var g GuardError
	if errors.As(problems, &g) {
		return g
	}
	return nil
}

func (p Problems) Error() string {
	msgs := make([]string, len(p))
	for i, e := range p {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// Load reads the settings from the flags given and, for each flag not
// given, its CURSOR_OTEL_* twin in the environment, and checks the
// standard OTEL_* variables. Whatever is wrong comes back as Problems,
// with the settings read as well as they could be: a wrong value takes its
// default.
func Load(f Flags, getenv func(string) string) (Settings, error) {
	l := loader{getenv: getenv}
	s := Settings{
		CaptureContent:     l.on("capture-content", f.CaptureContent, false),
		MaxAttributeLength: DefaultMaxAttributeLength,
		DefaultRedaction:   l.on("default-redaction", f.DefaultRedaction, true),
		Quiet:              l.on("quiet", f.Quiet, false),
		LiveSpans:          l.on("live-spans", f.LiveSpans, false),
		FlushTimeout:       DefaultFlushTimeout,
		StallThreshold:     DefaultStallThreshold,
		Agent:              l.text("agent", f.Agent),
		Summary:            l.summaryFile(f.Summary),
		SummaryJSON:        l.text("summary-json", f.SummaryJSON),
		TraceURL:           l.text("trace-url", f.TraceURL),
		Rewrite:            true,
	}
	if text, where := l.value("max-attribute-length", f.MaxAttributeLength); text != "" {
		if n, err := parseSize(text); err != nil {
			l.bad(where, text, err)
		} else {
			s.MaxAttributeLength = n
		}
	}
	for _, d := range []struct {
		flag, given string
		into        *time.Duration
	}{{"stall-threshold", f.StallThreshold, &s.StallThreshold}, {"stall-timeout", f.StallTimeout, &s.StallTimeout}} {
		text, where := l.value(d.flag, d.given)
		switch {
		case text == "":
		case strings.EqualFold(text, "off"):
			*d.into = 0
		default:
			if v, err := parseDuration(text); err != nil {
				l.bad(where, text, err)
			} else {
				*d.into = v
			}
		}
	}
	if text, where := l.value("flush-timeout", f.FlushTimeout); text != "" {
		if d, err := parseDuration(text); err != nil {
			l.bad(where, text, err)
		} else {
			s.FlushTimeout = d
		}
	}
	patterns, where := f.Redact, "--redact"
	if len(patterns) == 0 {
		if env := getenv(envName("redact")); env != "" {
			patterns, where = []string{env}, envName("redact")
		}
	}
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			var syn *syntax.Error
			if errors.As(err, &syn) {
				err = errors.New(string(syn.Code))
			}
			l.bad(where, p, fmt.Errorf("not a regular expression (%v)", err))
			continue
		}
		s.Redact = append(s.Redact, re)
	}
	s.Prices = pricing.Default()
	if file, where := l.value("prices", f.Prices); file != "" {
		if table, err := pricing.Load(file); err != nil {
			// Said as it is: the error names the file and what is wrong.
			l.problems = append(l.problems, fmt.Errorf("%s: %w", where, err))
		} else {
			s.Prices = table
		}
	}
	if text, where := l.value("max-budget-usd", f.MaxBudgetUSD); text != "" {
		if usd, err := parseUSD(text); err != nil {
			l.bad(where, text, err)
			l.problems[len(l.problems)-1] = GuardError{l.problems[len(l.problems)-1]}
		} else {
			s.MaxBudgetUSD = usd
		}
	}
	if s.TraceURL != "" && !strings.Contains(s.TraceURL, "{trace_id}") {
		l.bad(l.where("trace-url", f.TraceURL), s.TraceURL, errors.New("no {trace_id} in it: write e.g. http://jaeger:16686/trace/{trace_id}"))
		s.TraceURL = ""
	}
	if text := getenv("CURSOR_OTEL_REWRITE"); text != "" {
		on, err := parseSwitch(text)
		if err != nil {
			l.bad("CURSOR_OTEL_REWRITE", text, err)
		}
		s.Rewrite = on || err != nil
	}
	s.Spool, s.SpoolMax = l.spool()
	s.MetricsUser = l.metricsUser()
	l.problems = append(l.problems, tracer.CheckEnv(getenv)...)
	if len(l.problems) > 0 {
		return s, l.problems
	}
	return s, nil
}

// spool reads CURSOR_OTEL_SPOOL (a directory, or off; the state
// directory's spool/ by default) and CURSOR_OTEL_SPOOL_MAX.
func (l *loader) spool() (dir string, max int64) {
	max = spool.DefaultMax
	if text := strings.TrimSpace(l.getenv("CURSOR_OTEL_SPOOL_MAX")); text != "" {
		if n, err := parseSize(text); err != nil {
			l.bad("CURSOR_OTEL_SPOOL_MAX", text, err)
		} else {
			max = int64(n)
		}
	}
	switch text := strings.TrimSpace(l.getenv("CURSOR_OTEL_SPOOL")); {
	case strings.EqualFold(text, "off"):
		return "", max
	case text == "":
		if state := statedir.Dir(l.getenv); state != "" {
			return filepath.Join(state, "spool"), max
		}
		return "", max
	default:
		abs, err := filepath.Abs(text)
		if err != nil {
			l.bad("CURSOR_OTEL_SPOOL", text, err)
			return "", max
		}
		return abs, max
	}
}

// loader reads each setting from its flag or its environment twin,
// gathering problems.
type loader struct {
	getenv   func(string) string
	problems Problems
}

// value is the text of a valued setting, and where it came from.
func (l *loader) value(flag, given string) (text, where string) {
	if given != "" {
		return given, "--" + flag
	}
	return strings.TrimSpace(l.getenv(envName(flag))), envName(flag)
}

func (l *loader) where(flag, given string) string {
	_, where := l.value(flag, given)
	return where
}

func (l *loader) text(flag, given string) string {
	text, _ := l.value(flag, given)
	return text
}

// on reads a switch: its flag if given, else its twin, else def.
func (l *loader) on(flag string, sw Switch, def bool) bool {
	text, where := sw.Text, "--"+flag
	if !sw.Set {
		text, where = l.getenv(envName(flag)), envName(flag)
		if strings.TrimSpace(text) == "" {
			return def
		}
	}
	on, err := parseSwitch(text)
	if err != nil {
		l.bad(where, text, err)
		return def
	}
	return on
}

func (l *loader) bad(where, text string, err error) {
	if strings.HasPrefix(where, "--") {
		l.problems = append(l.problems, fmt.Errorf("%s %q: %v", where, text, err))
		return
	}
	l.problems = append(l.problems, fmt.Errorf("%s=%q: %v", where, text, err))
}
