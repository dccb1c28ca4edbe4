package summary

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/cursor-otel/cursor-otel/internal/pricing"
)

// Files appends the report of each finished session to the files a user
// named: Markdown and JSON lines. It keeps the first error, to be said
// once.
type Files struct {
	Markdown, JSON string // paths; "" for none
	TraceURL       string // a URL with {trace_id} in it, to link each report to its trace

	mu       sync.Mutex
	err      error
	sessions int
	costUSD  float64 // of the sessions priced
	unknown  int     // sessions whose cost is not known

	hold         bool   // JSON reports wait for Finish (HoldJSON)
	held         []held // the JSON reports waiting
	fates        map[string]Spool
	olderDropped int
}

// Wanted says a report is to be written at all.
func (f *Files) Wanted() bool { return f != nil && (f.Markdown != "" || f.JSON != "") }

// Write appends the report of a session.
func (f *Files) Write(r Report) {
	if f.TraceURL != "" {
		r.TraceURL = strings.ReplaceAll(f.TraceURL, "{trace_id}", r.TraceID)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sessions++
	if r.CostUSD != nil {
		f.costUSD += *r.CostUSD
	} else {
		f.unknown++
	}
	for _, out := range []struct {
		path string
		data func() []byte
		json bool
	}{{f.Markdown, func() []byte { return []byte(r.Markdown()) }, false}, {f.JSON, r.JSON, true}} {
		if out.path == "" {
			continue
		}
		if out.json && f.hold {
			f.held = append(f.held, held{traceID: r.TraceID, line: out.data()})
			continue
		}
		if err := appendFile(out.path, out.data()); err != nil && f.err == nil {
			f.err = errWrite(err)
		}
	}
}

func errWrite(err error) error { return fmt.Errorf("write the summary: %w", err) }

// Finish ends the Markdown report of a run of several sessions with
// their total cost.
func (f *Files) Finish() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writeHeld()
	if f.Markdown == "" || f.sessions < 2 {
		return
	}
	line := fmt.Sprintf("**%d sessions: %s estimated in all**", f.sessions, pricing.USD(f.costUSD))
	if f.unknown > 0 {
		line += fmt.Sprintf(", not counting %d whose cost is unknown", f.unknown)
	}
	if err := appendFile(f.Markdown, []byte(line+"\n\n")); err != nil && f.err == nil {
		f.err = fmt.Errorf("write the summary: %w", err)
	}
}

// Err is the first error writing a report met, if any.
func (f *Files) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// appendFile appends data to path: $GITHUB_STEP_SUMMARY gathers every step's.
func appendFile(path string, data []byte) error {
	file, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := file.Write(data); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}
