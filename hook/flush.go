package hook

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/cursor-otel/cursor-otel/settings"
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

// Flush exports what the hooks spooled, until the spool is empty, then
// exits; another flusher already at it makes this one exit at once. When
// the collector takes none of a batch it goes back to the spool, for the
// next flush (records a day old are dropped). What became of the last
// export is in last-export.txt: a hook prints nothing.
func Flush(ctx context.Context, c FlushConfig) {
	for {
		unlock, err := lock(filepath.Join(c.StateDir, "flush.lock"), false)
		if err != nil {
			return // another flusher is at it
		}
		drained := drain(ctx, c)
		unlock()
		// A hook may have spooled while this one was finishing, and found
		// it still at work: look again.
		if _, err := os.Stat(filepath.Join(c.StateDir, "spool.ndjson")); err != nil || !drained {
			return
		}
	}
}

// drain exports the spool until it is empty; false when the collector is
// not there.
func drain(ctx context.Context, c FlushConfig) bool {
	s := c.Settings
	for {
		records, err := takeSpool(c.StateDir)
		if err != nil || len(records) == 0 {
			return err == nil
		}
		cfg := s.Tracing(c.Getenv, s.Redactor(c.Environ))
		prov, err := tracer.New(ctx, cfg)
		if err != nil {
			prov = tracer.NewNoExport(ctx, cfg)
		}
		for _, r := range records {
			spanmap.Emit(ctx, prov.Tracer(), r)
		}
		report := prov.Shutdown(ctx)
		status := "exported " + time.Now().UTC().Format(time.RFC3339)
		if w := report.Warning(); w != "" {
			status = w
		}
		_ = os.WriteFile(filepath.Join(c.StateDir, "last-export.txt"), []byte(status+"\n"), 0o600)
		if report.Spans > 0 && report.Exported == 0 && report.Err != nil {
			var keep []spanmap.SpanRecord
			for _, r := range records {
				if time.Since(r.End) < maxRecords {
					keep = append(keep, r)
				}
			}
			if len(keep) > 0 {
				if unlockState, err := lock(filepath.Join(c.StateDir, "state.lock"), true); err == nil {
					_ = appendSpool(c.StateDir, keep)
					unlockState()
				}
			}
			return false // the collector is not there: the next hook tries again
		}
	}
}
