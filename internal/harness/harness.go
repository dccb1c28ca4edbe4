// Package harness is what every mode traces with, set up in one call and
// closed in one: the redactor, the SDK's provider (exporting nothing when
// no exporter can be made: the reports still come), and the reports
// (--summary, --summary-json, metrics), each computed once from a
// finished session's or turn's spans.
//
// It is apart from settings, which only reads flags and the environment
// into values: a harness holds what lives as long as a mode's run (the
// provider, the report files) and ends it.
package harness

import (
	"context"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/envlist"
	"github.com/cursor-otel/cursor-otel/internal/redact"
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/internal/summary"
	"github.com/cursor-otel/cursor-otel/spanmap"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// Setup is what a mode says of its tracing.
type Setup struct {
	Settings settings.Settings
	// Environ is the process's environment (NAME=value): the secrets in
	// it are redacted, and the SDK reads its settings from it unless
	// Getenv is given.
	Environ []string
	Getenv  func(string) string
	Secrets []string // values given on the command line to redact (an --api-key)
	// Deliverer starts the background delivery the run hands its last
	// spans over to (tracer.Config.Deliverer); nil hands nothing over.
	Deliverer func()
	// HoldJSON: JSON reports wait for Close, which says what became of
	// each session the collector did not take.
	HoldJSON bool
	// Configure makes a mode's own changes to the SDK's set-up (span
	// processors of its own, no exporter); nil makes none.
	Configure func(*tracer.Config)
	// Route, when it says so (ok), names the files a trace's report goes
	// to instead of the settings' (nil: none; its metrics are recorded
	// still): the hooks' turns, each reported where its hook said.
	Route func(trace.TraceID) (files *summary.Files, ok bool)
	// Surface is where the sessions come from, on every metric point
	// (metrics.SurfaceCLI, SurfaceHooks, SurfaceACP; cli becomes ci in a
	// CI system); "" reads each session's from its spans (replay).
	Surface string
	// Person, when not nil, names the person of a trace's session, as
	// the settings allow (the hooks' user_email); nil names none.
	Person func(trace.TraceID) settings.Person
}

// Harness is a mode's tracing, set up.
type Harness struct {
	Settings settings.Settings
	Redactor *redact.Redactor
	Provider *tracer.Provider
	Reports  *summary.Files
	// ExportErr is why nothing is exported (no exporter could be made),
	// nil when the provider exports; MetricsErr why there are no metrics.
	ExportErr, MetricsErr error
	getenv                func(string) string
}

// getenv is how s reads the environment.
func (s Setup) getenv() func(string) string {
	if s.Getenv != nil {
		return s.Getenv
	}
	return func(name string) string { return envlist.Get(s.Environ, name) }
}

// config is the SDK's set-up and the redactor the settings make.
func (s Setup) config() (tracer.Config, *redact.Redactor) {
	r := s.Settings.Redactor(s.Environ, s.Secrets...)
	cfg := s.Settings.Tracing(s.getenv(), r)
	cfg.Deliverer = s.Deliverer
	if s.Configure != nil {
		s.Configure(&cfg)
	}
	return cfg, r
}

// Start sets a mode's tracing up. It never fails: what could not be
// set up is in ExportErr and MetricsErr (Notes says them).
func Start(ctx context.Context, s Setup) *Harness {
	cfg, r := s.config()
	h := &Harness{Settings: s.Settings, Redactor: r, Reports: s.Settings.Reports(), getenv: s.getenv()}
	if s.HoldJSON {
		h.Reports.HoldJSON()
	}
	prov, err := tracer.New(ctx, cfg)
	if err != nil {
		// The settings were checked; what is left (an exporter that
		// cannot be made) leaves the run untraced but its reports.
		h.ExportErr = err
		prov = tracer.NewNoExport(ctx, cfg)
	}
	h.Provider = prov
	h.MetricsErr = report(prov, h.Reports, s.Route, s.where(h.getenv), s.Person)
	return h
}

// Getenv reads the environment as the mode's tracing does.
func (h *Harness) Getenv(name string) string { return h.getenv(name) }

// Recording is what the span model records, redacted.
func (h *Harness) Recording() spanmap.Options { return h.Settings.Recording(h.Redactor) }

// Notes are what went wrong setting up, redacted, for the mode to say.
func (h *Harness) Notes() []string {
	var notes []string
	if h.ExportErr != nil {
		notes = append(notes, h.Redactor.Redact(h.ExportErr.Error())+"; nothing exported")
	}
	if h.MetricsErr != nil {
		notes = append(notes, h.Redactor.Redact(h.MetricsErr.Error())+"; no metrics")
	}
	return notes
}

// Close ends the provider (what is left is exported, or kept), tells the
// reports what became of the sessions the collector did not take, and
// finishes them. It returns what the export did and the reports' first
// error, if any.
func (h *Harness) Close(ctx context.Context) (tracer.ExportReport, error) {
	r := h.Provider.Shutdown(ctx)
	spooled(h.Reports, r)
	h.Reports.Finish()
	return r, h.Reports.Err()
}

// NewDelivery is a delivery of what runs kept (flush, the hooks' turns
// too large to keep), set up as Start sets a provider up, and its
// redactor.
func NewDelivery(ctx context.Context, s Setup) (*tracer.Delivery, *redact.Redactor, error) {
	cfg, r := s.config()
	d, err := tracer.NewDelivery(ctx, cfg)
	return d, r, err
}
