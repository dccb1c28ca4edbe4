package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// TestACPKilledBetweenExportsLosesNoTurn kills cursor-otel acp (SIGKILL)
// right after its turns ended (each turn's report is written: the
// tracer has the turn), before the batch that would export them: the
// turns reach the collector with the next flush, each once, beside any
// it exported itself.
func TestACPKilledBetweenExportsLosesNoTurn(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	dir := filepath.Join(t.TempDir(), "spool")
	reports := filepath.Join(t.TempDir(), "summary.jsonl")
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeACP, "CURSOR_OTEL_SPOOL=" + dir,
		"OTEL_METRICS_EXPORTER=none", "CURSOR_OTEL_SUMMARY_JSON=" + reports}
	e := startEditor(t, binary, env, "acp")
	sid := e.newSession()
	const turns = 5
	for range turns {
		if a := e.prompt(sid, "echo", nil); a.Error != nil || a.eof {
			t.Fatalf("turn: %+v", a)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) { // polling the reports
		b, _ := os.ReadFile(reports)
		if bytes.Count(b, []byte("\n")) == turns {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the turns' reports: %q", b)
		}
	}
	if err := e.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	e.close()
	exported := len(roots(golden.FromOTLP(recv.Spans())))
	if exported == turns {
		t.Fatalf("all %d turns were exported before the kill: the batch came within ms of the last turn", turns)
	}
	waitForDeliverers(t, dir)
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_SPOOL=" + dir}, nil, "flush")
	if r.exit != 0 || !strings.Contains(r.stdout, "delivered") {
		t.Fatalf("flush: exit %d, stdout %q, stderr %q", r.exit, r.stdout, r.stderr)
	}
	spans := waitSpans(t, recv, "every turn", func(s []golden.Span) bool { return len(roots(s)) >= turns })
	if got := len(roots(spans)); got != turns {
		t.Errorf("%d turns at the collector, want %d", got, turns)
	}
	noSpanTwice(t, spans)
	if left, _ := filepath.Glob(filepath.Join(dir, "journal-*")); len(left) > 0 {
		t.Errorf("the journal is left after the flush: %v", left)
	}
}

// TestACPTurnsExportedInBatches: turns back to back go in one export once
// the session is idle, while it is still open; those left when the
// editor exits go in one more; each turn arrives once, and the journal
// is gone.
func TestACPTurnsExportedInBatches(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	dir := filepath.Join(t.TempDir(), "spool")
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeACP, "CURSOR_OTEL_SPOOL=" + dir,
		"OTEL_METRICS_EXPORTER=none"}
	// A first session: the spool learns that the collector answers
	// promptly (until then each batch goes through the background
	// delivery, a part a turn).
	e := startEditor(t, binary, env, "acp")
	if a := e.prompt(e.newSession(), "echo", nil); a.Error != nil || a.eof {
		t.Fatalf("turn: %+v", a)
	}
	e.close()
	waitSpans(t, recv, "the first session's turn", func(s []golden.Span) bool { return len(roots(s)) == 1 })
	waitForDeliverers(t, dir)
	before := len(recv.Headers())

	e = startEditor(t, binary, env, "acp")
	sid := e.newSession()
	const idle, atExit = 10, 3
	for range idle {
		if a := e.prompt(sid, "echo", nil); a.Error != nil || a.eof {
			t.Fatalf("turn: %+v", a)
		}
	}
	waitSpans(t, recv, "the turns, once the session is idle", func(s []golden.Span) bool { return len(roots(s)) == 1+idle })
	if n := len(recv.Headers()) - before; n != 1 {
		t.Errorf("%d exports for %d turns back to back, want 1", n, idle)
	}
	for range atExit {
		if a := e.prompt(sid, "echo", nil); a.Error != nil || a.eof {
			t.Fatalf("turn: %+v", a)
		}
	}
	if code := e.close(); code != 0 {
		t.Fatalf("exit %d: %s", code, e.stderr.String())
	}
	// Exported before cursor-otel exits: no waiting here.
	spans := golden.FromOTLP(recv.Spans())
	if got := len(roots(spans)); got != 1+idle+atExit {
		t.Errorf("%d turns at the collector when the session ended, want %d", got, 1+idle+atExit)
	}
	if n := len(recv.Headers()) - before; n != 2 {
		t.Errorf("%d exports in the session, want 2 (one when idle, one at exit)", n)
	}
	noSpanTwice(t, spans)
	if left, _ := filepath.Glob(filepath.Join(dir, "journal-*")); len(left) > 0 {
		t.Errorf("the journal is left after the session: %v", left)
	}
}
