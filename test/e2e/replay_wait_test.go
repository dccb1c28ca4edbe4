package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/synth"
)

// busyReplay replays a session of 3,002 spans, exported 50 to a request,
// with a 300 ms flush timeout, to recv; env is added to the environment
// (it may set the flush timeout), more to the command. The batch
// processor's queue holds them all, so that reading never waits for the
// collector: every request is sent after the reading ends.
func busyReplay(t *testing.T, recv *otlptest.Receiver, env []string, more ...string) result {
	t.Helper()
	path := filepath.Join(t.TempDir(), "long.ndjson")
	if err := os.WriteFile(path, synth.Stream(1000), 0o644); err != nil {
		t.Fatal(err)
	}
	env = append([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_FLUSH_TIMEOUT=300ms", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE=50", "OTEL_BSP_MAX_QUEUE_SIZE=4096"}, env...)
	return runBinary(t, env, nil, append(append([]string{"replay"}, more...), path)...)
}

// waitingSaid is the line replay says while it waits for a busy collector.
var waitingSaid = regexp.MustCompile(`^cursor-otel: waiting for the collector at http://127\.0\.0\.1:\d+: [\d,]+ of 3,002 spans taken, last answer \d+\.\ds ago$`)

// A collector that answers each request within the flush timeout, but
// takes several times the flush timeout for them all (61 requests of 50
// spans, 100 ms each, 4 at a time), gets every span once, and replay
// exits 0: the flush timeout counts from its last answer. Past the flush
// timeout, replay says what it waits for (unless --quiet).
func TestReplayWaitsForABusyCollector(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		recv := otlptest.StartGRPC(t)
		recv.SlowDown(100 * time.Millisecond)
		var more []string
		if quiet {
			more = []string{"--quiet"}
		}
		r := busyReplay(t, recv, nil, more...)
		if r.exit != 0 {
			t.Errorf("quiet %v: exit %d, stderr %q; want 0", quiet, r.exit, r.stderr)
		}
		if r.took < 900*time.Millisecond {
			t.Errorf("quiet %v: replay took %v: not three times the flush timeout, the test holds nothing", quiet, r.took)
		}
		spans := golden.FromOTLP(recv.Spans())
		noSpanTwice(t, spans)
		if len(spans) != 3002 {
			t.Errorf("quiet %v: %d spans arrived, want 3,002", quiet, len(spans))
		}
		lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		switch {
		case quiet && r.stderr != "":
			t.Errorf("quiet: stderr %q, want nothing", r.stderr)
		case !quiet && r.stderr == "":
			t.Errorf("replay waited %v, past the flush timeout, and said nothing", r.took)
		case !quiet:
			for _, l := range lines {
				if !waitingSaid.MatchString(l) {
					t.Errorf("stderr line %q; want one saying what replay waits for", l)
				}
			}
		}
	}
}

// A collector that answers 10 requests and then stops answering is given
// up on the flush timeout after its last answer, as before: exit 1, and
// one line saying what was not sent and what no answer came for.
func TestReplayGivesUpOnACollectorThatStopsAnswering(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	recv.SlowDown(100 * time.Millisecond)
	recv.StallAfter(10)
	r := busyReplay(t, recv, nil, "--quiet")
	if r.exit != 1 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "spans not exported, no answer within the 300ms flush timeout for") {
		t.Errorf("exit %d, stderr %q; want 1 and one line saying no answer came", r.exit, r.stderr)
	}
	if got := recv.SpanCount(); got != 500 {
		t.Errorf("%d spans arrived, want the 500 of the 10 requests answered", got)
	}
	if r.took > 2*time.Second {
		t.Errorf("replay took %v; want it to give up 300ms after the last answer, about 0.6 s in", r.took)
	}
}

// The same through the spool: a replay whose collector is not known to
// answer promptly hands what it exports after reading over to the
// background delivery, one part for each request (61, 50 ms each: three
// times the 1 s flush timeout), and waits while the delivery's parts are
// answered: every span arrives once, replay exits 0, nothing stays kept.
func TestReplayWaitsForTheDeliveryToABusyCollector(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool")
	t.Cleanup(func() { waitForDeliverers(t, dir) })
	recv := otlptest.StartGRPC(t)
	recv.SlowDown(50 * time.Millisecond)
	r := busyReplay(t, recv, []string{"CURSOR_OTEL_SPOOL=" + dir, "CURSOR_OTEL_FLUSH_TIMEOUT=1s"}, "--quiet")
	if r.exit != 0 || r.stderr != "" {
		t.Errorf("exit %d, stderr %q; want 0 and nothing", r.exit, r.stderr)
	}
	spans := golden.FromOTLP(recv.Spans())
	noSpanTwice(t, spans)
	if len(spans) != 3002 || r.took < 2*time.Second {
		t.Errorf("%d spans arrived after %v; want 3,002, after more than twice the flush timeout", len(spans), r.took)
	}
	waitForDeliverers(t, dir)
	if n := keptSpans(t, dir); n != 0 {
		t.Errorf("%d spans still kept", n)
	}
}
