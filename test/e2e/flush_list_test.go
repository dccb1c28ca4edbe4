package e2e

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// flush --list shows what is kept by destination (count, size, age; the
// headers by name, never their values), flush --discard DEST drops one
// destination's sessions and says how many, an unknown DEST exits 1
// pointing to --list, and flush says in one short line how many wait
// elsewhere.
func TestFlushListAndDiscard(t *testing.T) {
	t.Parallel() // waits on the delivery's timers, not the CPU
	dir := filepath.Join(t.TempDir(), "spool")
	first, second, today := otlptest.Down(t), otlptest.Down(t), otlptest.Down(t)
	const secret = "Bearer s3cret-token"
	keep := func(endpoint string, more ...string) {
		env := append([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint, "CURSOR_OTEL_SPOOL=" + dir, "OTEL_METRICS_EXPORTER=none"}, more...)
		if r := runBinary(t, env, nil, "replay", "--quiet", "--keep", "examples/fix-failing-test.ndjson"); !strings.Contains(r.stderr, "kept in") {
			t.Fatalf("replay --keep: exit %d, stderr %q", r.exit, r.stderr)
		}
		waitForDeliverers(t, dir)
	}
	keep(first)
	keep(first)
	keep(second, "OTEL_EXPORTER_OTLP_HEADERS=authorization="+secret)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + today, "CURSOR_OTEL_SPOOL=" + dir, "OTEL_METRICS_EXPORTER=none"}

	list := runBinary(t, env, nil, "flush", "--list")
	if list.exit != 0 || list.stderr != "" {
		t.Fatalf("flush --list: exit %d, stderr %q", list.exit, list.stderr)
	}
	if strings.Contains(list.stdout, "s3cret") {
		t.Errorf("flush --list shows a header's value:\n%s", list.stdout)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`^cursor-otel: 3 sessions \([0-9.]+ kB\) kept in ` + regexp.QuoteMeta(dir) + `, for 2 destinations:\n`),
		regexp.MustCompile(`(?m)^  [0-9a-f]{6}  ` + regexp.QuoteMeta(first) + ` \(grpc\): 2 sessions, [0-9.]+ kB, (kept|oldest kept) \d+s ago`),
		regexp.MustCompile(`(?m)^  [0-9a-f]{6}  ` + regexp.QuoteMeta(second) + ` \(grpc\) with authorization \(not set today\): 1 session, [0-9.]+ kB, kept \d+s ago$`),
	} {
		if !want.MatchString(list.stdout) {
			t.Errorf("flush --list:\n%s\nwant it to match %s", list.stdout, want)
		}
	}

	f := runBinary(t, env, nil, "flush")
	if said := f.stdout + f.stderr; strings.Count(said, "\n") != 1 || !strings.Contains(said, "3 sessions wait for other collectors (2 destinations): cursor-otel flush --list shows them") {
		t.Errorf("flush: exit %d, said %q; want one line pointing to flush --list", f.exit, said)
	}

	unknown := runBinary(t, env, nil, "flush", "--discard", "http://nowhere:4317")
	if unknown.exit != 1 || strings.Count(unknown.stderr, "\n") != 1 || !strings.Contains(unknown.stderr, "cursor-otel flush --list") {
		t.Errorf("flush --discard of an unknown destination: exit %d, stderr %q; want 1 and one line pointing to flush --list", unknown.exit, unknown.stderr)
	}
	if n := keptSpans(t, dir); n != 3*exampleSpans {
		t.Errorf("%d spans kept after discarding nothing, want %d", n, 3*exampleSpans)
	}

	d := runBinary(t, env, nil, "flush", "--discard", first)
	if want := "cursor-otel: discarded 2 sessions kept for " + first + " (grpc)\n"; d.exit != 0 || d.stdout != want {
		t.Errorf("flush --discard: exit %d, stdout %q, stderr %q; want 0 and %q", d.exit, d.stdout, d.stderr, want)
	}
	if n := keptSpans(t, dir); n != exampleSpans {
		t.Errorf("%d spans kept after the discard, want the other destination's %d", n, exampleSpans)
	}
	id := regexp.MustCompile(`(?m)^  ([0-9a-f]{6})  `).FindStringSubmatch(runBinary(t, env, nil, "flush", "--list").stdout)
	if id == nil {
		t.Fatal("flush --list shows no destination after the discard")
	}
	if d := runBinary(t, env, nil, "flush", "--discard", id[1]); d.exit != 0 || !strings.Contains(d.stdout, "discarded 1 session kept for "+second) {
		t.Errorf("flush --discard ID: exit %d, stdout %q, stderr %q", d.exit, d.stdout, d.stderr)
	}
	if l := runBinary(t, env, nil, "flush", "--list"); l.exit != 0 || l.stdout != "cursor-otel: nothing kept in "+dir+"\n" {
		t.Errorf("flush --list of an empty spool: exit %d, stdout %q", l.exit, l.stdout)
	}
}
