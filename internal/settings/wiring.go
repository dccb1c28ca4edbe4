package settings

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/cursor-otel/cursor-otel/internal/ci"
	"github.com/cursor-otel/cursor-otel/internal/envlist"
	"github.com/cursor-otel/cursor-otel/internal/redact"
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/internal/summary"
	"github.com/cursor-otel/cursor-otel/internal/version"
	"github.com/cursor-otel/cursor-otel/spanmap"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// Redactor masks what the settings say, the secrets in the environment
// (NAME=value pairs), the collector's credentials and the secret values
// given (an --api-key).
func (s Settings) Redactor(environ []string, secrets ...string) *redact.Redactor {
	literals := append(redact.SecretsInEnviron(environ), tracer.Credentials(lookup(environ))...)
	return redact.New(redact.Options{
		Literals:   append(literals, secrets...),
		Patterns:   s.Redact,
		NoBuiltins: !s.DefaultRedaction,
	})
}

// Recording is what the span model records.
func (s Settings) Recording(r *redact.Redactor) spanmap.Options {
	return spanmap.Options{CaptureContent: s.CaptureContent, MaxContent: s.MaxAttributeLength, Redact: r.Redact, RedactJSON: r.RedactJSON,
		Prices: s.Prices, MaxBudgetUSD: s.MaxBudgetUSD, StallAfter: s.StallThreshold}
}

// Reports are the summary files the settings name.
func (s Settings) Reports() *summary.Files {
	return &summary.Files{Markdown: s.Summary, JSON: s.SummaryJSON, TraceURL: s.TraceURL}
}

// Tracing is how the SDK is set up: the CI run, if any, described in the
// resource (redacted: a clone URL can carry a token). With content
// captured a span can weigh several values of MaxAttributeLength
// (arguments, result, messages), so batches are sized to keep every
// export under the receivers' limit.
func (s Settings) Tracing(getenv func(string) string, r *redact.Redactor) tracer.Config {
	cfg := tracer.Config{Getenv: getenv, FlushTimeout: s.FlushTimeout, Version: version.Read().String(),
		IDGenerator: spanmap.NewIDGenerator(), LiveSpans: s.LiveSpans}
	for _, a := range ci.Detect(getenv) {
		cfg.Resource = append(cfg.Resource, attribute.String(string(a.Key), r.Redact(a.Value.AsString())))
	}
	if s.Spool != "" {
		cfg.Spool = spool.Open(s.Spool, s.SpoolMax)
	}
	if s.CaptureContent {
		cfg.MaxSpanBytes = 4*max(s.MaxAttributeLength, 0) + 4<<10
	}
	return cfg
}

// lookup reads environ as os.Getenv reads the process's.
func lookup(environ []string) func(string) string {
	return func(name string) string { return envlist.Get(environ, name) }
}
