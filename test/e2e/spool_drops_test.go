package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/spool"
)

// summaryLines reads a --summary-json file: one object per session.
func summaryLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("summary line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// A session larger than the spool's bound by itself: the run says it
// was dropped, never that it was kept; nothing of it stays, the session
// kept before stays; flush and the JSON report say so too.
func TestSpoolSessionLargerThanTheBound(t *testing.T) {
	t.Parallel() // its own spool, receivers and reports: it shares nothing with another test
	dir := filepath.Join(t.TempDir(), "spool")
	t.Cleanup(func() { waitForDeliverers(t, dir) })
	down := otlptest.Down(t)
	spoolRun(t, down, dir) // one small session kept first
	waitForDeliverers(t, dir)
	before, _ := spool.Open(dir, 0).Stat()
	report := filepath.Join(t.TempDir(), "runs.json")
	// With content capture the example weighs about 10 KB; the bound is 8 KiB.
	w := spoolRun(t, down, dir, "CURSOR_OTEL_CAPTURE_CONTENT=true", "CURSOR_OTEL_SPOOL_MAX=8k", "CURSOR_OTEL_SUMMARY_JSON="+report)
	waitForDeliverers(t, dir)
	after, _ := spool.Open(dir, 0).Stat()
	t.Logf("run said %q; spool before %+v, after %+v", w.stderr, before, after)
	if w.exit != 0 || strings.Contains(w.stderr, "kept in") || !strings.Contains(w.stderr, "1 session (11 spans) dropped: larger than the spool's bound") {
		t.Errorf("exit %d, stderr %q; want 0 and a line saying the session was dropped as too large, never kept", w.exit, w.stderr)
	}
	if after.Sessions != 1 || after.Spans != before.Spans {
		t.Errorf("spool after: %+v; want the one session kept before, alone", after)
	}
	lines := summaryLines(t, report)
	if sp, _ := lines[len(lines)-1]["spool"].(map[string]any); len(lines) != 1 || sp["dropped"] != "too_large" || sp["kept"] != nil {
		t.Errorf("summary JSON %v; want its session's spool.dropped = too_large", lines)
	}
	recv := comeBack(t, down)
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_SPOOL=" + dir}, nil, "flush")
	if r.exit != 0 || !strings.Contains(r.stdout, "delivered 1 session") || !strings.Contains(r.stdout, "1 session dropped earlier as larger than CURSOR_OTEL_SPOOL_MAX") {
		t.Errorf("flush: exit %d, %q; want the kept session delivered and the one too large said", r.exit, r.stdout)
	}
}

// Sessions dropped at the bound are said by the run that drops them, in
// its JSON report, and by flush afterwards, whatever background
// deliveries ran between.
func TestSpoolDropsAreTold(t *testing.T) {
	t.Parallel() // its own spool, receivers and reports: it shares nothing with another test
	dir := filepath.Join(t.TempDir(), "spool")
	t.Cleanup(func() { waitForDeliverers(t, dir) })
	down := otlptest.Down(t)
	capture := "CURSOR_OTEL_CAPTURE_CONTENT=true"
	spoolRun(t, down, dir, capture)
	waitForDeliverers(t, dir)
	one, _ := spool.Open(dir, 0).Stat()
	bound := fmt.Sprintf("CURSOR_OTEL_SPOOL_MAX=%d", one.Bytes*5/2) // room for two and a half
	report := filepath.Join(t.TempDir(), "runs.json")
	var said []string
	for range 4 {
		// Each run after the first starts a background delivery (something
		// is kept for its collector), which finds the collector down.
		w := spoolRun(t, down, dir, capture, bound, "CURSOR_OTEL_SUMMARY_JSON="+report)
		said = append(said, w.stderr)
		waitForDeliverers(t, dir)
	}
	told := 0
	for _, s := range said {
		if strings.Contains(s, "1 older session dropped to keep the spool within its bound") {
			told++
		}
	}
	inReports := 0
	for _, l := range summaryLines(t, report) {
		if sp, ok := l["spool"].(map[string]any); ok {
			if n, _ := sp["older_sessions_dropped"].(float64); n > 0 {
				inReports += int(n)
			}
		}
	}
	recv := comeBack(t, down)
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_SPOOL=" + dir}, nil, "flush")
	t.Logf("runs said %q; flush said %q", said, r.stdout)
	if told != 3 {
		t.Errorf("%d runs said they dropped an older session; want 3 (5 sessions, room for 2)", told)
	}
	if inReports != 3 {
		t.Errorf("the JSON reports say %d older sessions dropped; want 3", inReports)
	}
	if r.exit != 0 || !strings.Contains(r.stdout, "delivered 2 sessions") || !strings.Contains(r.stdout, "3 sessions dropped earlier, oldest first") {
		t.Errorf("flush: exit %d, %q; want 2 sessions delivered and the 3 dropped said", r.exit, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "last-delivery.txt")); err == nil {
		t.Error("last-delivery.txt is still written: no one reads it")
	}
}
