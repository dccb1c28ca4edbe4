package hook

import (
	"path/filepath"

	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/internal/summary"
)

// A hook turn's reports (--summary, --summary-json, --trace-url) go where
// the hook that recorded its conversation's last event built with it said,
// flag or CURSOR_OTEL_* twin, whoever builds the turn: the hook's own
// background delivery, a wrapped run's, or `cursor-otel flush` (whose
// settings may be another's). As a turn's destination is its own, so
// are its reports: a CI job's summary never gets a hook turn that
// happened to be built by its run. Each entry of the journal carries them.

// reportTo is where a hook said its turns' reports go; the zero value
// writes none (metrics are still recorded).
type reportTo struct {
	Summary     string `json:"summary,omitempty"`
	SummaryJSON string `json:"summary_json,omitempty"`
	TraceURL    string `json:"trace_url,omitempty"`
}

// reportsOf is where s sends reports, with the files made absolute: the
// builder runs in another directory than the hook.
func reportsOf(s settings.Settings) *reportTo {
	abs := func(path string) string {
		if path == "" {
			return ""
		}
		if a, err := filepath.Abs(path); err == nil {
			return a
		}
		return path
	}
	r := &reportTo{Summary: abs(s.Summary), SummaryJSON: abs(s.SummaryJSON)}
	if r.Summary != "" || r.SummaryJSON != "" {
		r.TraceURL = s.TraceURL
	}
	return r
}

// files are the report files of each reportTo a build writes to, made
// once and finished when the build ends.
type reportFiles map[reportTo]*summary.Files

func (f reportFiles) of(r reportTo) *summary.Files {
	if r == (reportTo{}) {
		return nil
	}
	if files := f[r]; files != nil {
		return files
	}
	files := &summary.Files{Markdown: r.Summary, JSON: r.SummaryJSON, TraceURL: r.TraceURL}
	f[r] = files
	return files
}

func (f reportFiles) finish() {
	for _, files := range f {
		files.Finish()
	}
}
