package tracer

import (
	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
)

// Silence stops the OpenTelemetry libraries from printing on stderr: by
// default they print every error they meet (a malformed
// OTEL_EXPORTER_OTLP_HEADERS, a failed export), and cursor-otel promises at
// most one line of its own. What matters reaches the user through Report.
// It sets process-wide state: main calls it, once.
func Silence() {
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {}))
	otel.SetLogger(logr.Discard())
}
