package settings

import (
	"errors"
	"strings"
)

// stepSummaryVar names the file GitHub Actions shows on the job's page
// for the step that is running. Each step has a file of its own, so a
// setting exported for later steps (through $GITHUB_ENV, as the project's
// action does) cannot name the file itself: it names the variable, and
// each run reads it.
const stepSummaryVar = "GITHUB_STEP_SUMMARY"

// summaryFile is the Markdown summary's file: the value as given, or for
// $GITHUB_STEP_SUMMARY (unexpanded, as an env: entry in a workflow or a
// line in $GITHUB_ENV leaves it), the running step's summary file.
func (l *loader) summaryFile(given string) string {
	text, where := l.value("summary", given)
	if text != "$"+stepSummaryVar && text != "${"+stepSummaryVar+"}" {
		return text
	}
	file := strings.TrimSpace(l.getenv(stepSummaryVar))
	if file == "" {
		l.bad(where, text, errors.New(stepSummaryVar+" is not set: this is not a GitHub Actions step; name a file"))
	}
	return file
}
