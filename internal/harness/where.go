package harness

import (
	"os"

	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"

	"github.com/cursor-otel/cursor-otel/internal/ci"
	"github.com/cursor-otel/cursor-otel/internal/metrics"
)

// where is what the metrics say of where the sessions ran: the surface
// (a wrapped run in CI is ci), CI's repository, the work directory whose
// repository a session without its own is in, and the person when the
// team opted in.
func (s Setup) where(getenv func(string) string) metrics.Where {
	w := metrics.Where{Surface: s.Surface}
	if attrs := ci.Detect(getenv); attrs != nil {
		if w.Surface == metrics.SurfaceCLI {
			w.Surface = metrics.SurfaceCI
		}
		for _, a := range attrs {
			if a.Key == semconv.VCSRepositoryNameKey {
				w.Repository = a.Value.AsString()
			}
		}
	}
	w.WorkDir, _ = os.Getwd()
	return w
}
