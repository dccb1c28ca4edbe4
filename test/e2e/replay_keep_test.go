package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// Replay keeps nothing the collector did not take unless asked: the file
// is the copy. Replayed twice with the collector down, the spool holds
// nothing, and the one line says how to send the spans.
func TestReplayKeepsNothingUnlessAsked(t *testing.T) {
	t.Parallel() // waits on the hooks' grace and the delivery's timers, not the CPU
	dir := filepath.Join(t.TempDir(), "spool")
	down := otlptest.Down(t)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + down, "CURSOR_OTEL_SPOOL=" + dir, "OTEL_METRICS_EXPORTER=none"}
	for range 2 {
		r := runBinary(t, env, nil, "replay", "examples/fix-failing-test.ndjson")
		if r.exit != 1 {
			t.Errorf("exit %d, want 1 (an endpoint the user named failed)", r.exit)
		}
		want := "cursor-otel: export to " + down + " failed: connection refused; 11 of 11 spans not exported, not kept: " +
			"replay the file again once a collector listens (or with --keep, to keep them for cursor-otel flush)\n"
		if r.stderr != want {
			t.Errorf("stderr %q\nwant   %q", r.stderr, want)
		}
		if !strings.Contains(r.stdout, "execute_tool shell") {
			t.Errorf("no tree on stdout:\n%s", r.stdout)
		}
	}
	waitForDeliverers(t, dir)
	if n := keptSpans(t, dir); n != 0 {
		t.Errorf("%d spans kept by replays without --keep, want none", n)
	}
}

// replay --keep keeps what the collector did not take, as a wrapped run
// does, and flush sends it once the collector is back.
func TestReplayKeepThenFlush(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool")
	down := otlptest.Down(t)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + down, "CURSOR_OTEL_SPOOL=" + dir, "OTEL_METRICS_EXPORTER=none"}
	r := runBinary(t, env, nil, "replay", "--keep", "examples/fix-failing-test.ndjson")
	if r.exit != 1 || !strings.Contains(r.stderr, "kept in "+dir) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("replay --keep: exit %d, stderr %q; want 1 and one line saying where the spans wait", r.exit, r.stderr)
	}
	waitForDeliverers(t, dir)
	if n := keptSpans(t, dir); n != exampleSpans {
		t.Fatalf("%d spans kept by replay --keep, want %d", n, exampleSpans)
	}
	recv := comeBack(t, down)
	f := runBinary(t, env, nil, "flush")
	if want := "delivered 1 session (11 spans)"; f.exit != 0 || !strings.Contains(f.stdout, want) {
		t.Errorf("flush: exit %d, stdout %q, stderr %q; want 0 and %q", f.exit, f.stdout, f.stderr, want)
	}
	if n := recv.SpanCount(); n != exampleSpans {
		t.Errorf("%d spans at the collector after flush, want %d", n, exampleSpans)
	}
}

// Input that holds no line of the stream (a Markdown page, an empty file,
// empty stdin) is no session: exit 1, one line, nothing kept, nothing sent.
func TestReplayInputWithNoSession(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.ndjson")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"a Markdown page", []string{"README.md"}, "", "cursor-otel: replay README.md: no line of cursor-agent's stream-json in it ("},
		{"an empty file", []string{empty}, "", "cursor-otel: replay " + empty + ": empty: nothing replayed"},
		{"empty stdin", nil, "", "cursor-otel: replay stdin: empty: nothing replayed"},
		{"a page on stdin", []string{"-"}, "# notes\n\nnot a stream\n", "cursor-otel: replay stdin: no line of cursor-agent's stream-json in it (2 lines)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "spool")
			recv := otlptest.StartGRPC(t)
			env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_SPOOL=" + dir}
			r := runBinary(t, env, strings.NewReader(tt.stdin), append([]string{"replay"}, tt.args...)...)
			if r.exit != 1 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing on stdout, one line starting %q", r.exit, r.stdout, r.stderr, tt.want)
			}
			waitForDeliverers(t, dir)
			if n := keptSpans(t, dir); n != 0 {
				t.Errorf("%d spans kept", n)
			}
			if n, m := recv.SpanCount(), len(recv.Metrics()); n != 0 || m != 0 {
				t.Errorf("%d spans and %d metric exports sent, want none", n, m)
			}
		})
	}
}
