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
	// Redirect also exports the records kept for other destinations with
	// these settings: only when the user says so (flush --redirect).
	Redirect bool
}

// Flush exports what the hooks recorded for the destination these
// settings send to (all of it, to redirect), until none is left, then
// returns; another flusher already at it makes this one return at once.
// Records kept for other destinations wait (HooksWaiting counts them).
// What the collector does not take goes to the spool every mode shares
// (the provider keeps it), to be delivered with the rest: a record leaves
// the hooks' file once, whatever becomes of its export, so no span is
// exported twice. What became of the last export is in last-export.txt:
// a hook prints nothing.
func Flush(ctx context.Context, c FlushConfig) (exported int) {
	for {
		unlock, err := filelock.Lock(filepath.Join(c.StateDir, "flush.lock"), false)
		if err != nil {
			return exported // another flusher is at it, or there is no state yet
		}
		_, ids, _ := destinationIDs(c.StateDir, c.Getenv)
		exported += drain(ctx, c, ids)
		unlock()
		// A hook may have recorded while this one was finishing, and found
		// it still at work: look again, collector or not, so that nothing
		// waits here rather than in the spool.
		if !pendingRecords(c.StateDir, ids) || c.Redirect || ctx.Err() != nil {
			return exported
		}
	}
}

// drain exports the hooks' records kept for ids until none is left, or
// the collector did not take them (the spool has them then); it returns
// how many spans the collector took.
func drain(ctx context.Context, c FlushConfig, ids map[string]bool) (exported int) {
	s := c.Settings
	for {
		records, err := takeSpool(c.StateDir, ids, c.Redirect)
		if err != nil || len(records) == 0 {
			return exported
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
		exported += report.Exported
		status := "exported " + time.Now().UTC().Format(time.RFC3339)
		if w := report.Warning(); w != "" {
			status = w
		}
		// Redacted: the endpoint as written may hold a key in its query.
		_ = os.WriteFile(filepath.Join(c.StateDir, "last-export.txt"), []byte(s.Redactor(c.Environ).Redact(status)+"\n"), 0o600)
		if report.Lost() > 0 {
			return exported // the collector is not there: the spool has the records
		}
	}
}
