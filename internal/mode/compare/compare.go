// Package compare is cursor-otel's compare command: the figures of two
// sets of runs side by side, as a Markdown table a person pastes into a
// pull request, and thresholds that fail a CI step.
package compare

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/oneline"
	"github.com/cursor-otel/cursor-otel/internal/pricing"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

// Exit statuses: a threshold crossed, and input that cannot be read.
const (
	StatusCrossed    = 1
	StatusUnreadable = 2
)

// Config is one comparison.
type Config struct {
	Base, New string   // --summary-json files or recordings
	FailIf    []string // thresholds
	Prices    *pricing.Table
	// StallAfter is the stall threshold a recording is read with.
	StallAfter time.Duration
	Stdout     io.Writer
	Stderr     io.Writer
}

// Run compares and returns the exit status: 0 when no threshold is
// crossed, 1 when one is, 2 when an input or a threshold cannot be read.
func Run(c Config) int {
	fail := func(err error) int {
		fmt.Fprintln(c.Stderr, oneline.Join(err.Error()))
		return StatusUnreadable
	}
	var thresholds []threshold
	for _, s := range c.FailIf {
		t, err := parseThreshold(s)
		if err != nil {
			return fail(err)
		}
		thresholds = append(thresholds, t)
	}
	opts := spanmap.Options{Prices: c.Prices, StallAfter: c.StallAfter}
	base, err := readRuns(c.Base, opts)
	if err != nil {
		return fail(err)
	}
	newRuns, err := readRuns(c.New, opts)
	if err != nil {
		return fail(err)
	}
	fs := figures(base, newRuns)
	var checks []check
	var errs []error
	for _, t := range thresholds {
		i := slices.IndexFunc(fs, func(f figure) bool { return f.name == t.figure })
		if i < 0 {
			var names []string
			for _, f := range fs {
				names = append(names, f.name)
			}
			return fail(fmt.Errorf("--fail-if %q: no figure %q; there are %s", t.text, t.figure, strings.Join(names, ", ")))
		}
		if err := t.fits(fs[i]); err != nil {
			return fail(err)
		}
		bv, bok := sideOf(fs[i], base).value()
		nv, nok := sideOf(fs[i], newRuns).value()
		o, err := t.verdict(fs[i], bv, nv, bok, nok)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		checks = append(checks, check{t, o})
	}
	var b strings.Builder
	b.WriteString(headline(fs[0], base, newRuns, checks) + "\n\n")
	table(&b, fs, base, newRuns)
	status := 0
	if len(checks) > 0 {
		b.WriteString("\n| threshold | measured | |\n|---|---:|---|\n")
	}
	var crossed []string
	for _, c := range checks {
		verdict := "held"
		if c.crossed {
			verdict, status = "**crossed**", StatusCrossed
			crossed = append(crossed, oneline.Join(fmt.Sprintf("--fail-if %s crossed: %s", c.text, c.why)))
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", c.text, c.measured, verdict)
	}
	charts(&b, fs, base, newRuns)
	_, _ = io.WriteString(c.Stdout, b.String())
	// A CI log shows why the step failed: a line a threshold crossed.
	for _, line := range crossed {
		fmt.Fprintln(c.Stderr, line)
	}
	if len(errs) > 0 {
		return fail(errors.Join(errs...))
	}
	return status
}
