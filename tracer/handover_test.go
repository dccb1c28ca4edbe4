package tracer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/spool"
)

// handingProvider is a provider to the receiver whose run hands over to
// deliver, run as the background delivery when the provider starts it;
// changes, if any, are made to its configuration.
func handingProvider(t *testing.T, recv *otlptest.Receiver, dir *spool.Dir, deliver func(), changes ...func(*Config)) *Provider {
	t.Helper()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.Endpoint)
	cfg := Config{FlushTimeout: 2 * time.Second, Spool: dir, Deliverer: func() { go deliver() }}
	for _, change := range changes {
		change(&cfg)
	}
	p, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The hand-off is for a collector that took the connection.
	deadline := time.Now().Add(5 * time.Second)
	for !connected(p.traceConn, 10*time.Millisecond) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // polling the connection's state
	}
	return p
}

// delivering is a background delivery, run in the test's process, of
// what dir keeps; calls counts its starts.
func delivering(t *testing.T, dir *spool.Dir, calls *atomic.Int32) func() {
	return func() {
		calls.Add(1)
		d, err := NewDelivery(context.Background(), Config{})
		if err != nil {
			t.Error(err)
			return
		}
		defer d.Shutdown(context.Background())
		exp := d.Export()
		exp.Prompt = time.Second
		_, _ = dir.Deliver(context.Background(), exp, false)
	}
}

// A run to a collector not known to answer promptly hands its spans over;
// the delivery sends them once, and the run counts them exported. The
// delivery noted the prompt answer: the next run sends itself.
func TestRunHandsOverToTheDelivery(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	dir := spool.Open(filepath.Join(t.TempDir(), "spool"), 0)
	var calls atomic.Int32 // the delivery runs on a goroutine of its own
	deliver := delivering(t, dir, &calls)
	p := handingProvider(t, recv, dir, deliver)
	to, _ := Destination(os.Getenv)
	endSpans(p, 5)
	r := p.Shutdown(context.Background())
	if r.Exported != 5 || r.Handed != 0 || r.Warning() != "" || calls.Load() != 1 {
		t.Errorf("report %+v (warning %q), delivery started %d times; want 5 exported by the delivery, nothing said", r, r.Warning(), calls.Load())
	}
	if recv.SpanCount() != 5 || !dir.AnsweredPromptly(to) {
		t.Errorf("%d spans at the collector, prompt noted %v; want 5, and the prompt answer noted", recv.SpanCount(), dir.AnsweredPromptly(to))
	}
	p = handingProvider(t, recv, dir, deliver)
	endSpans(p, 5)
	if r := p.Shutdown(context.Background()); r.Exported != 5 || calls.Load() != 1 || recv.SpanCount() != 10 {
		t.Errorf("second run: %+v, delivery started %d times, %d spans at the collector; want 5 sent by the run itself", r, calls.Load(), recv.SpanCount())
	}
}

// A delivery that has not sent what was handed over by the deadline: the
// run says so, and the spans stay kept, once, for the delivery.
func TestRunSaysWhatItHandedOverUnanswered(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	dir := spool.Open(filepath.Join(t.TempDir(), "spool"), 0)
	p := handingProvider(t, recv, dir, func() {})
	endSpans(p, 5)
	r := p.Shutdown(context.Background())
	if r.Handed != 5 || r.Exported != 0 || r.Err != nil || !strings.Contains(r.Warning(), "no answer within the 2s flush timeout for 5 of 5 spans: handed to the background delivery") {
		t.Errorf("report %+v, warning %q; want 5 handed over and said so", r, r.Warning())
	}
	if st, _ := dir.Stat(); st.Spans != 5 || recv.SpanCount() != 0 {
		t.Errorf("kept %+v, %d at the collector; want the 5 kept, none sent by the run", st, recv.SpanCount())
	}
}

// A run that waits while the collector answers (replay) and hands over to
// one that answers each part within the flush timeout, 100 ms, but takes
// longer than it for them all (8 sessions, one part each): each part the
// delivery sends is an answer, and the run waits for them all.
func TestWaitingRunWaitsWhileTheDeliveryIsAnswered(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	recv.SlowDown(100 * time.Millisecond)
	dir := spool.Open(filepath.Join(t.TempDir(), "spool"), 0)
	var calls atomic.Int32
	p := handingProvider(t, recv, dir, delivering(t, dir, &calls), func(c *Config) {
		c.FlushTimeout, c.WaitWhileAnswered = 300*time.Millisecond, true
	})
	endSpans(p, 8) // each its own session
	start := time.Now()
	r := p.Shutdown(context.Background())
	took := time.Since(start)
	if r.Exported != 8 || r.Handed != 0 || r.Warning() != "" || calls.Load() != 1 {
		t.Errorf("report %+v (warning %q), delivery started %d times; want 8 exported by the delivery, nothing said", r, r.Warning(), calls.Load())
	}
	if recv.SpanCount() != 8 || took < 600*time.Millisecond {
		t.Errorf("%d spans at the collector after %v; want the 8, after more than twice the flush timeout", recv.SpanCount(), took)
	}
}
