package tracer

import (
	"context"
	"errors"
	"github.com/cursor-otel/cursor-otel/internal/ostext"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestReadSettings(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    settings
		wantErr string
	}{
		{"defaults: OTLP/gRPC to plaintext localhost:4317", nil,
			settings{traces: signal{exporters: []string{"otlp"}, protocol: "grpc", endpoint: "localhost:4317"}}, ""},
		{"http/protobuf defaults to localhost:4318", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
			settings{traces: signal{exporters: []string{"otlp"}, protocol: "http/protobuf", endpoint: "localhost:4318"}}, ""},
		{"the traces protocol wins", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"},
			settings{traces: signal{exporters: []string{"otlp"}, protocol: "grpc", endpoint: "localhost:4317"}}, ""},
		{"a named endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel.example.com:4317"},
			settings{traces: signal{exporters: []string{"otlp"}, protocol: "grpc", endpoint: "https://otel.example.com:4317", userEndpoint: true}}, ""},
		{"the traces endpoint wins", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4317", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:4317"},
			settings{traces: signal{exporters: []string{"otlp"}, protocol: "grpc", endpoint: "http://b:4317", userEndpoint: true}}, ""},
		{"console only", map[string]string{"OTEL_TRACES_EXPORTER": "console"},
			settings{traces: signal{exporters: []string{"console"}}}, ""},
		{"console and otlp", map[string]string{"OTEL_TRACES_EXPORTER": "otlp, console"},
			settings{traces: signal{exporters: []string{"otlp", "console"}, protocol: "grpc", endpoint: "localhost:4317"}}, ""},
		{"none", map[string]string{"OTEL_TRACES_EXPORTER": "none"}, settings{}, ""},
		{"SDK disabled", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, settings{}, ""},
		{"unknown exporter", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, settings{}, `unknown exporter "zipkin"`},
		{"a bare host:port", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4317"}, settings{},
			`"localhost:4317" is not a URL: write http://localhost:4317 for plaintext or https://localhost:4317 for TLS`},
		{"a scheme without its ://", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http//collector:4317"}, settings{},
			`"http//collector:4317" is missing :// after the scheme: write http://collector:4317 for plaintext or https://collector:4317 for TLS`},
		{"a scheme with one slash", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https:/collector:4317"}, settings{},
			`is missing :// after the scheme: write http://collector:4317`},
		{"a mistyped scheme before bytes that are not UTF-8", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "HTTP:\xc1\xc1"}, settings{},
			`is missing :// after the scheme`},
		{"a host named like a scheme", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "httpbin:4317"}, settings{},
			`"httpbin:4317" is not a URL: write http://httpbin:4317`},
		{"a bare IP:port", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "10.0.0.7:4317"}, settings{}, `is not a URL`},
		{"http/json is not supported", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, settings{}, `"http/json" is not supported`},
		{"a URL that does not parse is not offered a second scheme", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://[::1"}, settings{},
			`OTEL_EXPORTER_OTLP_ENDPOINT: "http://[::1" is not a URL (missing ']' in host): write it as http://host:port`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := readSettings(env(tt.env))
			err := errors.Join(problems...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g, w := got.traces, tt.want.traces; !slices.Equal(g.exporters, w.exporters) || g.protocol != w.protocol ||
				g.endpoint != w.endpoint || g.userEndpoint != w.userEndpoint {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Every standard variable the OpenTelemetry libraries would skip, or read
// as something else, is a problem that says what to write; good values are
// none.
func TestCheckEnv(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.txt")
	os.WriteFile(notPEM, []byte("hello"), 0o644)
	for _, tt := range []struct {
		env  map[string]string
		want string // "" for no problem
	}{
		{map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": filepath.Join(dir, "missing.pem")}, "OTEL_EXPORTER_OTLP_CERTIFICATE: " + filepath.Join(dir, "missing.pem") + ": " + ostext.Missing(filepath.Join(dir, "missing.pem"))},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": notPEM}, "holds no PEM certificate"},
		{map[string]string{"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": notPEM}, "CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY go together"},
		{map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "authorization"}, `HEADERS: "authorization" is not key=value`},
		{map[string]string{"OTEL_METRICS_EXPORTER": "prometheus"}, `OTEL_METRICS_EXPORTER="prometheus": unknown exporter "prometheus"`},
		{map[string]string{"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE": "deltas"}, "write cumulative, delta or lowmemory"},
		{map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "collector:4317"}, `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "collector:4317" is not a URL`},
		{map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer%zz"}, `the value of "authorization" is not URL-encoded`},
		{map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer%20abc, x-team=7"}, ""},
		{map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "10s"}, `OTEL_EXPORTER_OTLP_TIMEOUT="10s": write a number of milliseconds`},
		{map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "10000"}, ""},
		{map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"}, `COMPRESSION="zstd": write gzip or none`},
		{map[string]string{"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "abc"}, `OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT="abc": write a whole number`},
		{map[string]string{"OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "1k"}, `write a whole number`},
		{map[string]string{"OTEL_TRACES_SAMPLER": "jaeger_remote"}, `OTEL_TRACES_SAMPLER="jaeger_remote" is not supported`},
		{map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "25%"}, `OTEL_TRACES_SAMPLER_ARG="25%": write a ratio from 0 to 1`},
		{map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.25"}, ""},
		{map[string]string{"OTEL_SDK_DISABLED": "yes please"}, `OTEL_SDK_DISABLED="yes please": write true or false`},
		{map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "team"}, `OTEL_RESOURCE_ATTRIBUTES: "team" is not key=value`},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_TRACES_SAMPLER": "always_off"}, ""},
	} {
		problems := CheckEnv(env(tt.env))
		switch {
		case tt.want == "" && len(problems) > 0:
			t.Errorf("%v: %v, want no problem", tt.env, problems)
		case tt.want != "" && (len(problems) != 1 || !strings.Contains(problems[0].Error(), tt.want)):
			t.Errorf("%v: %v, want one problem saying %q", tt.env, problems, tt.want)
		}
	}
}

// newProvider points a provider at endpoint through the process
// environment, which the OTLP exporters read themselves.
func newProvider(t *testing.T, endpoint string, flush time.Duration) *Provider {
	t.Helper()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
	p, err := New(context.Background(), Config{FlushTimeout: flush})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func endSpans(p *Provider, n int) {
	for range n {
		_, s := p.Tracer().Start(context.Background(), "span")
		s.End()
	}
}

func TestReportCountsExportedSpans(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	p := newProvider(t, recv.Endpoint, 3*time.Second)
	endSpans(p, 700) // more than one batch of 512
	r := p.Shutdown(context.Background())
	if r.Err != nil || r.Spans != 700 || r.Exported != 700 || r.Lost() != 0 {
		t.Errorf("report %+v, want 700 of 700 exported", r)
	}
	if got := recv.SpanCount(); got != 700 {
		t.Errorf("receiver got %d spans, want 700", got)
	}
	if !r.UserEndpoint || r.Endpoint != recv.Endpoint {
		t.Errorf("report endpoint %q (user %v), want %q named by the user", r.Endpoint, r.UserEndpoint, recv.Endpoint)
	}
}

func TestReportSaysWhyAnExportWasRefused(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	recv.Refuse(status.Error(codes.Unauthenticated, "missing API key"))
	p := newProvider(t, recv.Endpoint, 3*time.Second)
	endSpans(p, 5)
	r := p.Shutdown(context.Background())
	if status.Code(errors.Unwrap(r.Err)) != codes.Unauthenticated && !strings.Contains(r.Err.Error(), "Unauthenticated") {
		t.Errorf("err = %v, want the receiver's Unauthenticated", r.Err)
	}
	if r.Lost() != 5 {
		t.Errorf("lost %d spans, want 5", r.Lost())
	}
}

// A collector that is down costs one failed attempt, not one per batch, and
// the deadline bounds the whole flush.
func TestCollectorDown(t *testing.T) {
	p := newProvider(t, otlptest.Down(t), time.Second)
	endSpans(p, 2000)
	start := time.Now()
	r := p.Shutdown(context.Background())
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Errorf("shutdown took %v with a 1s flush timeout", took)
	}
	if r.Err == nil || r.Lost() != 2000 || r.Exported != 0 {
		t.Errorf("report %+v, want 2000 lost with an error", r)
	}
}

// A collector that accepts connections and never answers is cut off at the
// flush deadline; the spans sent to it are unconfirmed, not called lost.
func TestCollectorHangs(t *testing.T) {
	p := newProvider(t, otlptest.Hanging(t), 500*time.Millisecond)
	endSpans(p, 3)
	start := time.Now()
	r := p.Shutdown(context.Background())
	if took := time.Since(start); took > time.Second {
		t.Errorf("shutdown took %v with a 500ms flush timeout", took)
	}
	if r.Lost() != 3 || r.Unconfirmed != 3 || r.Err != nil {
		t.Errorf("report %+v, want 3 sent and unconfirmed", r)
	}
}

// fakeClock is a guard's clock that a test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newTestGuard(next sdktrace.SpanExporter, batchSize, holdLimit int) (*guard, *fakeClock) {
	clock := &fakeClock{now: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}
	g := newGuard(next, batchSize, holdLimit)
	g.now = clock.Now
	return g, clock
}

// export hands n spans to the guard and waits for the export it starts.
func export(g *guard, n int) {
	_ = g.ExportSpans(context.Background(), make([]sdktrace.ReadOnlySpan, n))
	<-g.inFlight.none()
}

// A collector that is down is asked once per back-off, not once per batch;
// what came meanwhile is held and goes with the first export after it.
func TestGuardHoldsSpansWhileTheCollectorIsDown(t *testing.T) {
	collector := &countingExporter{err: errors.New("unavailable")}
	g, clock := newTestGuard(collector, 512, 100)
	export(g, 3)
	export(g, 2) // in the back-off
	if calls, _ := collector.counts(); calls != 1 {
		t.Errorf("collector asked %d times, want once in the back-off", calls)
	}
	clock.Add(minBackOff)
	collector.fail(nil) // back up
	export(g, 1)
	calls, spans := collector.counts()
	if exported, _, err := g.result(); calls != 2 || spans != 6 || exported != 6 || err == nil {
		t.Errorf("after the back-off: %d calls, %d spans, %d exported, err %v; want 6 spans in one retry and the first error kept", calls, spans, exported, err)
	}
}

// Held spans are bounded; those beyond the bound are given up and never
// counted as exported. A retry is split into batches of batchSize.
func TestGuardHoldsAtMostItsLimit(t *testing.T) {
	collector := &countingExporter{err: errors.New("unavailable")}
	g, clock := newTestGuard(collector, 2, 4)
	export(g, 3)
	export(g, 3)
	clock.Add(minBackOff)
	collector.fail(nil)
	export(g, 0)
	if calls, spans := collector.counts(); calls != 1+2 || spans != 4 {
		t.Errorf("%d calls carrying %d spans, want 4 spans in 2 batches of 2 after the failed one", calls, spans)
	}
	if exported, _, _ := g.result(); exported != 4 {
		t.Errorf("%d exported, want the 4 held", exported)
	}
}

// Each failure in a row doubles the back-off, up to maxBackOff.
func TestGuardBacksOffLonger(t *testing.T) {
	collector := &countingExporter{err: errors.New("unavailable")}
	g, clock := newTestGuard(collector, 512, 100)
	var waits []time.Duration
	for range 7 {
		export(g, 1)
		g.mu.Lock()
		wait := g.downUntil.Sub(g.now())
		g.mu.Unlock()
		waits = append(waits, wait)
		clock.Add(wait)
	}
	want := []time.Duration{1, 2, 4, 8, 16, 16, 16}
	for i := range want {
		if waits[i] != want[i]*time.Second {
			t.Fatalf("back-offs %v, want %v seconds", waits, want)
		}
	}
}

// At shutdown, spans held during the run are tried once more (the
// collector may be back); spans that failed in the shutdown's own flush
// are not, so a collector that is down costs one failed attempt.
func TestGuardShutdownRetriesWhatWasHeldBefore(t *testing.T) {
	collector := &countingExporter{err: errors.New("unavailable")}
	g, _ := newTestGuard(collector, 512, 100)
	export(g, 2)
	collector.fail(nil)
	flush, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	g.beginShutdown(flush)
	if err := g.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if exported, _, _ := g.result(); exported != 2 {
		t.Errorf("%d exported, want the 2 held during the run", exported)
	}

	down := &countingExporter{err: errors.New("unavailable")}
	g, _ = newTestGuard(down, 512, 100)
	g.beginShutdown(flush)
	export(g, 2)
	_ = g.Shutdown(context.Background())
	if calls, _ := down.counts(); calls != 1 {
		t.Errorf("collector asked %d times, want once", calls)
	}
}

type countingExporter struct {
	mu    sync.Mutex
	calls int
	spans int
	err   error
}

func (c *countingExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.err == nil {
		c.spans += len(spans)
	}
	return c.err
}

func (c *countingExporter) fail(err error) {
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
}

func (c *countingExporter) counts() (calls, spans int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls, c.spans
}

func (c *countingExporter) Shutdown(context.Context) error { return nil }

func TestNoExportStillRunsProcessors(t *testing.T) {
	seen := 0
	p := NewNoExport(context.Background(), Config{Processors: []sdktrace.SpanProcessor{onEnd(func() { seen++ })}})
	endSpans(p, 4)
	r := p.Shutdown(context.Background())
	if seen != 4 || r.Err != nil || r.Lost() != 0 {
		t.Errorf("processor saw %d spans, report %+v; want 4 and nothing lost", seen, r)
	}
}

type onEnd func()

func (f onEnd) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (f onEnd) OnEnd(sdktrace.ReadOnlySpan)                     { f() }
func (f onEnd) Shutdown(context.Context) error                  { return nil }
func (f onEnd) ForceFlush(context.Context) error                { return nil }

func TestTraceparentRoundTrip(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx, ok := ParentFromEnv(context.Background(), env(map[string]string{"TRACEPARENT": tp, "TRACESTATE": "ci=1"}))
	if !ok {
		t.Fatal("a valid TRACEPARENT was not taken")
	}
	got := ChildEnv(ctx, []string{"PATH=/bin", "TRACEPARENT=00-old-old-00", "HOME=/h"})
	want := []string{"PATH=/bin", "HOME=/h", "TRACEPARENT=" + tp, "TRACESTATE=ci=1"}
	if !slices.Equal(got, want) {
		t.Errorf("ChildEnv = %q, want %q", got, want)
	}
	for _, bad := range []string{"", "garbage", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7"} {
		if _, ok := ParentFromEnv(context.Background(), env(map[string]string{"TRACEPARENT": bad})); ok {
			t.Errorf("TRACEPARENT %q was taken as valid", bad)
		}
	}
}

// signalWriter says on wrote that something was written.
type signalWriter struct{ wrote chan struct{} }

func (w signalWriter) Write(p []byte) (int, error) {
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

// Once the run is ending, a trace is exported as its root ends, not at
// Shutdown: the export goes beside the caller's own end of the session.
func TestRootEndingExportsOnceTheRunEnds(t *testing.T) {
	w := signalWriter{wrote: make(chan struct{}, 1)}
	p, err := New(context.Background(), Config{Getenv: env(map[string]string{"OTEL_TRACES_EXPORTER": "console"}), Console: w})
	if err != nil {
		t.Fatal(err)
	}
	_, root := p.Tracer().Start(context.Background(), "root")
	p.EndingAt(time.Now())
	root.End()
	select {
	case <-w.wrote:
	case <-time.After(3 * time.Second): // the batch processor's own delay is 5 s
		t.Error("the trace was not exported when its root ended")
	}
	if r := p.Shutdown(context.Background()); r.Spans != 1 || r.Lost() != 0 {
		t.Errorf("report %+v, want 1 span, none lost", r)
	}
}

// A run's metrics go out once, started as its trace ends when the run is
// ending; a trace that ends after that export began is exported too.
func TestMetricsExportedOnceAsTheTraceEnds(t *testing.T) {
	ctx := context.Background()
	for _, roots := range []int{1, 2} {
		recv := otlptest.StartGRPC(t)
		p, err := New(ctx, Config{Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": recv.Endpoint})})
		if err != nil {
			t.Fatal(err)
		}
		runs, err := p.Meter().Int64Counter("runs")
		if err != nil {
			t.Fatal(err)
		}
		p.OnTraceEnd(func(Trace) { runs.Add(ctx, 1) })
		p.EndingAt(time.Now())
		for range roots {
			_, root := p.Tracer().Start(ctx, "root")
			root.End()
		}
		r := p.Shutdown(ctx)
		exports := recv.Metrics()
		if len(exports) == 0 || len(exports) > roots || r.MetricsErr != nil {
			t.Fatalf("%d roots: %d metrics exports (%v), want 1 to %d", roots, len(exports), r.MetricsErr, roots)
		}
		last := exports[len(exports)-1].GetScopeMetrics()[0].GetMetrics()[0].GetSum().GetDataPoints()[0].GetAsInt()
		if last != int64(roots) {
			t.Errorf("%d roots: the last export counts %d runs, want %d", roots, last, roots)
		}
	}
}

// Spans and metrics say which conventions their names come from: the
// resource, the tracer's scope and the meter's scope carry one schema URL.
func TestSchemaURLOnResourceTracerAndMeter(t *testing.T) {
	ctx := context.Background()
	recv := otlptest.StartGRPC(t)
	p, err := New(ctx, Config{Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": recv.Endpoint})})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := p.Meter().Int64Counter("runs")
	if err != nil {
		t.Fatal(err)
	}
	p.OnTraceEnd(func(Trace) { runs.Add(ctx, 1) })
	p.EndingAt(time.Now())
	_, root := p.Tracer().Start(ctx, "root")
	root.End()
	p.Shutdown(ctx)
	const want = "https://opentelemetry.io/schemas/1.43.0"
	for _, rs := range recv.Spans() {
		if rs.GetSchemaUrl() != want || rs.GetScopeSpans()[0].GetSchemaUrl() != want {
			t.Errorf("spans: resource schema %q, scope schema %q; want %s", rs.GetSchemaUrl(), rs.GetScopeSpans()[0].GetSchemaUrl(), want)
		}
	}
	for _, rm := range recv.Metrics() {
		if rm.GetSchemaUrl() != want || rm.GetScopeMetrics()[0].GetSchemaUrl() != want {
			t.Errorf("metrics: resource schema %q, scope schema %q; want %s", rm.GetSchemaUrl(), rm.GetScopeMetrics()[0].GetSchemaUrl(), want)
		}
	}
	if len(recv.Spans()) == 0 || len(recv.Metrics()) == 0 {
		t.Errorf("%d span exports, %d metric exports; want both", len(recv.Spans()), len(recv.Metrics()))
	}
}
