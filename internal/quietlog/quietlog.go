// Package quietlog discards what libraries log through log/slog's default
// logger, from the start of the program: the OpenTelemetry libraries log
// malformed OTEL_* values at package initialisation, before main runs and
// whatever --quiet says, and cursor-otel promises at most one line of its
// own on stderr, which says what is wrong in its own words.
//
// Import it for its side effect from main. It imports nothing that logs,
// and its path sorts before go.opentelemetry.io, so Go initialises it
// before those libraries.
package quietlog

import (
	"io"
	"log/slog"
)

func init() {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
}
