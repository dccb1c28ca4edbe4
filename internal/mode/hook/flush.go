package hook

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/filelock"
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/spanmap"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// FlushConfig is one run of the background flusher.
type FlushConfig struct {
	Settings settings.Settings
	Environ  []string
	Getenv   func(string) string
	StateDir string
}

// Flush exports what the hooks recorded, until none is left, then
// returns; another flusher already at it makes this one return at once.
// What the collector does not take goes to the spool every mode shares
// (the provider keeps it), to be delivered with the rest: a record leaves
// the hooks' file once, whatever becomes of its export, so no span is
// exported twice. What became of the last export is in last-export.txt:
// a hook prints nothing.
func Flush(ctx context.Context, c FlushConfig) {
	for {
		unlock, err := filelock.Lock(filepath.Join(c.StateDir, "flush.lock"), false)
		if err != nil {
			return // another flusher is at it, or there is no state yet
		}
		drain(ctx, c)
		unlock()
		// A hook may have recorded while this one was finishing, and found
		// it still at work: look again, collector or not, so that nothing
		// waits here rather than in the spool.
		if _, err := os.Stat(filepath.Join(c.StateDir, "spool.ndjson")); err != nil || ctx.Err() != nil {
			return
		}
	}
}

// drain exports the hooks' records until none is left, or the collector
// did not take them (the spool has them then).
func drain(ctx context.Context, c FlushConfig) {
	s := c.Settings
	for {
		records, err := takeSpool(c.StateDir)
		if err != nil || len(records) == 0 {
			return
		}
		cfg := s.Tracing(c.Getenv, s.Redactor(c.Environ))
		// No user waits on this exit (a background delivery, or flush):
		// the collector gets the export timeout to answer, not the flush
		// timeout, so that one answering late is not sent the records
		// again from the spool.
		cfg.FlushTimeout = max(cfg.FlushTimeout, tracer.ExportTimeout(c.Getenv)+time.Second)
		prov, err := tracer.New(ctx, cfg)
		if err != nil {
			prov = tracer.NewNoExport(ctx, cfg)
		}
		// A session ended here is reported as any other: its totals
		// (tokens, cost) are on its span; the calls made in earlier hook
		// processes were exported by them.
		_ = settings.Report(prov, s.Reports())
		for _, r := range records {
			spanmap.Emit(ctx, prov.Tracer(), r)
		}
		report := prov.Shutdown(ctx)
		status := "exported " + time.Now().UTC().Format(time.RFC3339)
		if w := report.Warning(); w != "" {
			status = w
		}
		_ = os.WriteFile(filepath.Join(c.StateDir, "last-export.txt"), []byte(status+"\n"), 0o600)
		if report.Lost() > 0 {
			return // the collector is not there: the spool has the records
		}
	}
}
