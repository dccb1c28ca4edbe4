package flush

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/filelock"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// A flush the user runs while another delivery holds the spool waits for
// it, then delivers; one that waited its bound in vain exits 1 saying
// that nothing was sent, never 0 as if it had redirected.
func TestFlushWaitsForAnotherDelivery(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool")
	other := spool.Destination{Address: "http://otherhost:4317", Protocol: "grpc"}
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{7}, SpanID: trace.SpanID{7}, TraceFlags: trace.FlagsSampled})
	if _, err := spool.Open(dir, 0).Keep(other, []sdktrace.ReadOnlySpan{tracetest.SpanStub{Name: "invoke_agent cursor-agent", SpanContext: sc}.Snapshot()}); err != nil {
		t.Fatal(err)
	}
	recv := otlptest.StartGRPC(t)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": recv.Endpoint, "OTEL_METRICS_EXPORTER": "none"}
	if _, ok := tracer.Destination(func(k string) string { return env[k] }); !ok {
		t.Fatal("no destination")
	}
	unlock, err := filelock.Lock(filepath.Join(dir, "deliver.lock"), false)
	if err != nil {
		t.Fatal(err)
	}
	run := func(wait time.Duration) (int, string, string) {
		var stdout, stderr bytes.Buffer
		status := Run(context.Background(), Config{Settings: settings.Settings{Spool: dir}, Getenv: func(k string) string { return env[k] },
			Stdout: &stdout, Stderr: &stderr, Redirect: true, Wait: wait})
		return status, stdout.String(), stderr.String()
	}
	status, stdout, stderr := run(300 * time.Millisecond)
	if status != 1 || stdout != "" || !strings.Contains(stderr, "waiting for it to end") || !strings.Contains(stderr, "nothing sent or redirected") || recv.SpanCount() != 0 {
		t.Errorf("while another holds the spool: status %d, stdout %q, stderr %q, %d spans; want 1, the wait and why nothing was redirected", status, stdout, stderr, recv.SpanCount())
	}
	// The other delivery ends while this one waits: it redirects then.
	time.AfterFunc(300*time.Millisecond, unlock)
	status, stdout, _ = run(10 * time.Second)
	if status != 0 || !strings.Contains(stdout, "delivered 1 session (1 span)") || recv.SpanCount() != 1 {
		t.Errorf("once the other ended: status %d, stdout %q, %d spans; want 0 and the session redirected", status, stdout, recv.SpanCount())
	}
}

// AwaitBackground waits for the background delivery's lock, says once
// that it waits, and gives up at its bound.
func TestAwaitBackground(t *testing.T) {
	dir := t.TempDir()
	if !AwaitBackground(context.Background(), dir, time.Second, func() { t.Error("said it waits with none alive") }) {
		t.Fatal("no delivery alive, and it did not return at once")
	}
	unlock, err := filelock.Lock(filepath.Join(dir, delivererLock), false)
	if err != nil {
		t.Fatal(err)
	}
	said := 0
	if AwaitBackground(context.Background(), dir, 250*time.Millisecond, func() { said++ }) || said != 1 {
		t.Errorf("with one alive throughout: want false, said once (said %d)", said)
	}
	time.AfterFunc(200*time.Millisecond, unlock)
	if !AwaitBackground(context.Background(), dir, 10*time.Second, nil) {
		t.Error("the delivery ended, and it was still waiting")
	}
}
