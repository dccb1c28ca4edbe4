// Package tracer sets up the OpenTelemetry SDK for cursor-otel: exporters
// from the standard OTEL_* variables, the resource, a batch processor that
// loses no span, and a flush bounded by a deadline. It knows nothing of
// cursor-agent's events.
package tracer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/internal/steplog"
)

// DefaultFlushTimeout bounds how long exporting may hold up exit.
const DefaultFlushTimeout = 3 * time.Second

// exitAllowance is what the flush leaves of the timeout for exiting.
const exitAllowance = 50 * time.Millisecond

// Config says what the caller adds to the standard variables.
type Config struct {
	// Getenv reads the environment; nil means os.Getenv. (The OTLP
	// exporters read headers, TLS files, compression and timeouts from the
	// process environment themselves.)
	Getenv func(string) string
	// FlushTimeout bounds Shutdown; DefaultFlushTimeout when zero.
	FlushTimeout time.Duration
	// WaitWhileAnswered counts the flush timeout from the collector's
	// last answer instead of from the run's end: for a run no one waits
	// on but for its export (replay), so that a collector that is busy
	// but answering gets everything, and one that stops answering is
	// given up on as by any run. Off, the flush ends at most the flush
	// timeout after the run does (the wrapper, hooks and ACP: their exit
	// is someone's wait).
	WaitWhileAnswered bool
	// Waiting, with WaitWhileAnswered, is told how the flush stands
	// every so often once it has waited longer than the flush timeout.
	Waiting func(Waiting)
	// Processors see every span before it is exported (the replay tree).
	Processors []sdktrace.SpanProcessor
	// Console is where OTEL_TRACES_EXPORTER=console writes; nil means
	// stderr, so that a wrapped agent's stdout stays untouched.
	Console io.Writer
	// Version is cursor-otel's version: telemetry.distro.version (with
	// telemetry.distro.name=cursor-otel) and the instrumentation scope's.
	Version string
	// Resource holds more resource attributes, under the ones from
	// OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME.
	Resource []attribute.KeyValue
	// IDGenerator gives spans their IDs; the SDK's random one when nil. (A
	// span model that makes spans when they end, with IDs its children
	// already name, brings its own.)
	IDGenerator sdktrace.IDGenerator
	// MaxSpanBytes is the most one span may weigh when exported; batches
	// are made small enough that one export stays under 3 MiB, below the
	// 4 MiB a gRPC receiver accepts by default. Zero keeps the SDK's batch
	// size (spans of metadata weigh a few hundred bytes).
	MaxSpanBytes int
	// LiveSpans exports each span as it ends (a running session shows in
	// a trace viewer as it goes). Off, a trace's spans are held until its
	// root ends and exported together, so that a tail-sampling collector
	// sees it whole, however long it ran.
	LiveSpans bool
	// Spool keeps what the collector did not take, for a later run to
	// deliver; nil loses it (and Report says so).
	Spool *spool.Dir
	// KeepNothing: what the collector does not take is not kept in the
	// Spool, only counted (a replay: the file it read is the copy). What
	// is handed over to the background delivery still goes through it.
	KeepNothing bool
	// Deliverer starts the background delivery. Set (with a Spool), a run whose
	// collector is not known to answer within the flush timeout hands
	// what it exports after it ended over to the delivery, which waits
	// for the answer (see handover.go); nil, the run sends all itself.
	Deliverer func()
	// Journal: a long-lived process that exports in batches (ExportBatch)
	// journals each trace as its root ends, in the spool, so that a kill
	// between two exports loses none (see journal.go). Needs Spool.
	Journal bool
}

// maxExportBytes is the most one export may weigh.
const maxExportBytes = 3 << 20

// What is held for a retry while the collector is unreachable: at most so
// many spans, weighing about so much.
const (
	maxHeldSpans = 8192
	maxHeldBytes = 16 << 20
)

// Provider is a configured TracerProvider.
type Provider struct {
	tp          *sdktrace.TracerProvider
	mp          *sdkmetric.MeterProvider // nil when metrics go nowhere
	metricGuard *metricGuard             // nil when metrics do not go over OTLP
	metricOuts  []metricOut              // the metrics' exporters and readers

	recorded     atomic.Int64  // traces whose metrics were recorded
	earlyOnce    sync.Once     // the metrics' export at a trace's end, started once
	early        chan struct{} // closed when it is done; nil when none started
	earlyErr     error
	earlyCovers  int64  // the traces recorded when it began
	guard        *guard // nil when nothing is exported over OTLP
	ended        atomic.Int64
	ending       atomic.Bool              // EndingAt was called: a root that ends is exported at once
	batches      []sdktrace.SpanProcessor // the exporters' processors
	flushTimeout time.Duration
	flush        *flushDeadline // when the flush gives up, counted once EndingAt was called
	waiting      func(Waiting)
	settings     settings
	version      string
	spool        *spool.Dir
	getenv       func(string) string
	conns        conns // the OTLP/gRPC connections dialed, closed at the end

	keptMu  sync.Mutex
	kept    spool.Kept // what went to the spool
	keepErr error      // why some could not

	destOnce sync.Once
	dest     spool.Destination          // where the spans go, as the spool names it (destination)
	look     atomic.Pointer[spool.Look] // the spool as LookAtSpool saw it

	deliverer func()
	traceConn *grpc.ClientConn // the traces' OTLP/gRPC connection, when cursor-otel dialed it
	handMu    sync.Mutex
	handing   bool           // what is exported now is handed over
	handed    []spool.Handed // what was
	started   bool           // the delivery was started
	eachTrace bool           // hand over as the process goes (HandOverEachTrace)
	// handedDelivered: of what was handed over, the spans the delivery
	// has sent, as the flush last looked.
	handedDelivered atomic.Int64

	journal *traceJournal // nil: nothing journaled
}

// New sets up the SDK. An error means a setting is wrong; the caller can
// still run with NewNoExport.
func New(ctx context.Context, cfg Config) (*Provider, error) {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.FlushTimeout <= 0 {
		cfg.FlushTimeout = DefaultFlushTimeout
	}
	s, problems := readSettings(cfg.Getenv)
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	p := &Provider{flushTimeout: cfg.FlushTimeout, settings: s, version: cfg.Version, spool: cfg.Spool, getenv: cfg.Getenv, conns: conns{},
		deliverer: cfg.Deliverer, flush: newFlushDeadline(cfg.FlushTimeout, cfg.WaitWhileAnswered)}
	if cfg.WaitWhileAnswered {
		p.waiting = cfg.Waiting
	}
	res := newResource(ctx, cfg)
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res), sdktrace.WithSampler(s.sampler)}
	if cfg.IDGenerator != nil {
		opts = append(opts, sdktrace.WithIDGenerator(cfg.IDGenerator))
	}
	for _, sp := range cfg.Processors {
		opts = append(opts, sdktrace.WithSpanProcessor(sp))
	}
	opts = append(opts, sdktrace.WithSpanProcessor(endCounter{&p.ended}))
	// Blocking: a long replay waits for the exporter rather than drop spans
	// from a full queue. (A live run is not slowed by it: its tracer reads a
	// copy of the agent's output, off the hot path.)
	batch := []sdktrace.BatchSpanProcessorOption{sdktrace.WithBlocking()}
	size, spanBytes := sdktrace.DefaultMaxExportBatchSize, 1<<10
	if n, err := strconv.Atoi(cfg.Getenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE")); err == nil && n > 0 {
		size = n
	}
	if cfg.MaxSpanBytes > 0 {
		size, spanBytes = max(1, min(size, maxExportBytes/cfg.MaxSpanBytes)), cfg.MaxSpanBytes
		batch = append(batch, sdktrace.WithMaxExportBatchSize(size))
	}
	held := max(size, min(maxHeldSpans, maxHeldBytes/spanBytes))
	for _, name := range s.traces.exporters {
		exp, err := p.newExporter(ctx, name, cfg, size, held)
		if err != nil {
			_ = p.conns.close()
			return nil, err
		}
		var sp sdktrace.SpanProcessor = sdktrace.NewBatchSpanProcessor(exp, batch...)
		p.batches = append(p.batches, sp)
		if !cfg.LiveSpans {
			w := newWholeTraces(sp, min(maxWholeSpans, max(1, maxHeldBytes*4/spanBytes)))
			if g := p.guard; exp == g {
				// Once the run is ending, a trace whose root ends goes to
				// the OTLP export at once, not through the batch
				// processor's queue and goroutine: they put two hand-offs
				// between the agent's exit and the export.
				w.direct = func(spans []sdktrace.ReadOnlySpan) bool {
					if !g.exportNow(spans) {
						return false
					}
					// The export's goroutine runs now, on this processor,
					// until it waits for the collector's answer; the
					// caller's work after the root (the reports, the
					// metrics) goes on while the collector answers.
					runtime.Gosched()
					return true
				}
				w.ending = p.ending.Load
				if cfg.Journal {
					p.journal = p.journalFor(size)
					w.journal = p.journal
				}
			}
			sp = w
		}
		opts = append(opts, sdktrace.WithSpanProcessor(sp))
	}
	// After the exporters' processors: the root is queued by then.
	opts = append(opts, sdktrace.WithSpanProcessor(rootFlush{p}))
	p.tp = sdktrace.NewTracerProvider(opts...)
	mp, err := p.newMeterProvider(ctx, cfg, res)
	if err != nil {
		_ = p.conns.close()
		return nil, err
	}
	p.mp = mp
	return p, nil
}

// NewNoExport is a provider that exports nothing, for when the settings are
// wrong: the run goes on, the processors still see every span.
func NewNoExport(ctx context.Context, cfg Config) *Provider {
	cfg.Getenv = func(k string) string {
		if k == "OTEL_TRACES_EXPORTER" || k == "OTEL_METRICS_EXPORTER" {
			return "none"
		}
		return ""
	}
	p, _ := New(ctx, cfg)
	return p
}

// newExporter makes the named exporter; an OTLP one behind a guard that
// sends at most batchSize spans an export and holds at most held.
func (p *Provider) newExporter(ctx context.Context, name string, cfg Config, batchSize, held int) (sdktrace.SpanExporter, error) {
	if name == "console" {
		w := cfg.Console
		if w == nil {
			w = os.Stderr
		}
		return stdouttrace.New(stdouttrace.WithWriter(w))
	}
	exp, err := p.otlpExporter(ctx, cfg.FlushTimeout)
	if err != nil {
		return nil, err
	}
	p.guard = newGuard(exp, batchSize, held)
	p.guard.answered = p.flush.answered
	if p.spool != nil {
		if !cfg.KeepNothing {
			p.guard.keep = p.keep
		}
		if p.deliverer != nil {
			p.guard.handOver = p.handOver
			p.guard.inDoubt = func() { p.spool.ForgetPromptAnswer(p.destination()) }
		}
	}
	return p.guard, nil
}

// destination is where the spans go, as the spool names it: read from the
// variables once.
func (p *Provider) destination() spool.Destination {
	p.destOnce.Do(func() { p.dest = p.settings.traces.destination(p.getenv) })
	return p.dest
}

// LookAtSpool looks at the spool, once, for what the rest of the run
// needs of it (whether the collector answers promptly, the sessions that
// wait for another one), so that the run's end does not; a wrapper calls
// it while the agent runs. It says whether earlier runs kept sessions for
// this collector: a background delivery has work.
func (p *Provider) LookAtSpool() (waiting bool) {
	if p.spool == nil || p.guard == nil {
		return false
	}
	l := p.spool.Look(p.destination())
	p.look.Store(&l)
	return l.HasKept
}

// keep writes spans the collector did not take to the spool.
func (p *Provider) keep(spans []sdktrace.ReadOnlySpan) {
	k, err := p.spool.Keep(p.destination(), spans)
	p.keptMu.Lock()
	defer p.keptMu.Unlock()
	p.kept.Spans += k.Spans
	p.kept.Sessions += k.Sessions
	p.kept.Dropped += k.Dropped
	p.kept.TooLarge += k.TooLarge
	p.kept.TooLargeSpans += k.TooLargeSpans
	for id, fate := range k.Traces {
		if p.kept.Traces == nil {
			p.kept.Traces = map[trace.TraceID]spool.Fate{}
		}
		p.kept.Traces[id] = fate
	}
	if err != nil && p.keepErr == nil {
		p.keepErr = err
	}
}

// otlpExporter is the OTLP exporter the settings name. A named endpoint
// gets retries for blips, for at most a second (half the flush timeout if
// less): a collector that is down costs every CI run that second, so not
// more. The default endpoint gets none: it is a local collector, and
// nothing there now means nothing will be.
func (p *Provider) otlpExporter(ctx context.Context, flushTimeout time.Duration) (sdktrace.SpanExporter, error) {
	var exp sdktrace.SpanExporter
	var err error
	retry, backoff, maxBackoff, give := p.settings.traces.userEndpoint, 200*time.Millisecond, 500*time.Millisecond, min(flushTimeout/2, time.Second)
	if p.settings.traces.protocol == "grpc" {
		opts := []otlptracegrpc.Option{otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{
			Enabled: retry, InitialInterval: backoff, MaxInterval: maxBackoff, MaxElapsedTime: give}),
			otlptracegrpc.WithDialOption(grpc.WithConnectParams(reconnect()))}
		if !p.settings.traces.userEndpoint {
			opts = append(opts, otlptracegrpc.WithEndpoint(p.settings.traces.endpoint), otlptracegrpc.WithInsecure())
		}
		if d, ok := dialingFor(os.Getenv, p.settings.traces, "TRACES"); ok {
			conn, err := p.conns.get(d, traceUserAgent)
			if err != nil {
				return nil, fmt.Errorf("OTLP exporter for %s: %w", p.settings.traces.endpoint, err)
			}
			p.traceConn = conn
			opts = append(opts, otlptracegrpc.WithGRPCConn(conn))
		}
		exp, err = otlptracegrpc.New(ctx, opts...)
		if err == nil && p.traceConn != nil && wireExportable(os.Getenv, "TRACES") {
			exp = newWireExporter(p.traceConn, exp)
		}
	} else {
		opts := append(httpOptions(p.settings.traces), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{
			Enabled: retry, InitialInterval: backoff, MaxInterval: maxBackoff, MaxElapsedTime: give}))
		exp, err = otlptracehttp.New(ctx, opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("OTLP exporter for %s: %w", p.settings.traces.endpoint, err)
	}
	return exp, nil
}

// httpOptions are where the OTLP/HTTP exporter sends, over what the
// variables say: the default endpoint, plaintext, when none is set.
func httpOptions(s signal) []otlptracehttp.Option {
	if s.userEndpoint {
		return nil
	}
	return []otlptracehttp.Option{otlptracehttp.WithEndpoint(s.endpoint), otlptracehttp.WithInsecure()}
}

func newResource(ctx context.Context, cfg Config) *resource.Resource {
	attrs := append([]attribute.KeyValue{semconv.ServiceName("cursor-agent"), semconv.TelemetryDistroName("cursor-otel")}, cfg.Resource...)
	if cfg.Version != "" {
		attrs = append(attrs, semconv.TelemetryDistroVersion(cfg.Version))
	}
	// Later options win: the standard variables over detection over the
	// defaults. Not WithProcess: the command line may hold an API key.
	res, err := resource.New(ctx,
		resource.WithSchemaURL(semconv.SchemaURL),
		resource.WithAttributes(attrs...),
		resource.WithTelemetrySDK(),
		resource.WithHost(),
		resource.WithOSType(),
		resource.WithFromEnv(),
	)
	if err != nil && res == nil {
		return resource.Default()
	}
	return res
}

// reconnect is how soon gRPC connects again to a collector it lost: after
// 100 ms, then at most every 500 ms. gRPC's default waits a second, then
// up to two minutes, between attempts, and fails every export meanwhile;
// a collector beside a CI job restarts in seconds, and the run's spans
// are held for it (the last retry, at exit, has a second).
func reconnect() grpc.ConnectParams {
	return grpc.ConnectParams{
		Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 500 * time.Millisecond},
		MinConnectTimeout: 20 * time.Second, // gRPC's default
	}
}

// Tracer is the tracer cursor-otel records with. Its schema URL is that
// of the conventions its names come from: the newest version the OTel
// module offers, as the resource's.
func (p *Provider) Tracer() trace.Tracer {
	return p.tp.Tracer("github.com/cursor-otel/cursor-otel", trace.WithInstrumentationVersion(p.version), trace.WithSchemaURL(semconv.SchemaURL))
}

// ExportReport says what became of the spans.
type ExportReport struct {
	Spans        int // spans ended (and sampled: meant for export)
	Exported     int // spans the collector accepted
	Unconfirmed  int // of the rest, spans sent whose answer did not come before the flush deadline
	Handed       int // of the rest, spans handed over to the background delivery, which waits for the answer
	FlushTimeout time.Duration
	Endpoint     string // where they were sent
	UserEndpoint bool   // the user named the endpoint
	Err          error  // why some were not exported; nil when all were, or none were meant to be

	MetricPoints    int    // metric data points the collector accepted
	MetricsErr      error  // why the metrics were not exported; nil when they were, or went nowhere
	MetricsEndpoint string // where they were sent
	// MetricsUserEndpoint: the user named where the metrics go.
	MetricsUserEndpoint bool
	// MetricsUnsupported: the collector takes no metrics (Jaeger alone).
	MetricsUnsupported bool

	Kept     spool.Kept // of the spans not exported, what the spool kept
	SpoolDir string     // where; "" when there is no spool
	KeepErr  error      // why the spool could not keep some
	// Again says how to send again the spans neither exported nor kept
	// (a replay: run it again), for Warning to say; "" says nothing.
	Again string
}

// Lost is the number of spans that ended and were not exported.
func (r ExportReport) Lost() int { return r.Spans - r.Exported }

// ErrFlushTimeout says the flush deadline passed with spans unexported.
var ErrFlushTimeout = errors.New("flush timed out")

// EndingAt says the run ended at t: the flush timeout counts from then
// (with WaitWhileAnswered, from the collector's last answer, if later).
// Exports under way and to come give up at its end (less a little for
// exiting), so that the tracing still to do after the run, and the flush,
// cannot hold up exit longer. Shutdown calls it if the caller did not.
func (p *Provider) EndingAt(t time.Time) {
	p.flush.start(t)
	defer p.ending.Store(true)
	p.handOverAt(p.flush.at())
	if p.guard != nil {
		p.guard.beginShutdown(p.flush.ctx)
	}
}

// Shutdown flushes what is left, within the flush timeout (with
// WaitWhileAnswered, of the collector's last answer), and says what
// became of the spans.
func (p *Provider) Shutdown(ctx context.Context) ExportReport {
	if !p.flush.started() {
		p.EndingAt(time.Now())
	}
	ctx, cancel := p.flush.context(ctx)
	defer cancel()
	defer p.tellWaiting()()
	// Traces and metrics flush side by side, each with the whole of the
	// time left: one collector endpoint that hangs must not leave the
	// other none, nor add its wait to the other's.
	var metricsErr error
	var flushing sync.WaitGroup
	if p.mp != nil {
		flushing.Go(func() { metricsErr = p.shutdownMetrics(ctx) })
	}
	shutdownErr := p.tp.Shutdown(ctx)
	flushing.Wait()
	r := ExportReport{Spans: int(p.ended.Load()), Endpoint: p.settings.traces.endpoint, UserEndpoint: p.settings.traces.userEndpoint, FlushTimeout: p.flushTimeout}
	if g := p.metricGuard; g != nil {
		r.MetricPoints, r.MetricsUnsupported, r.MetricsErr = g.result()
		if r.MetricsErr == nil && metricsErr != nil && !r.MetricsUnsupported {
			r.MetricsErr = metricsErr
		}
		r.MetricsEndpoint, r.MetricsUserEndpoint = p.settings.metrics.endpoint, p.settings.metrics.userEndpoint
	}
	// Closed without waiting: the exports are done, and tearing the
	// connections down is a measurable part of a wrapped run's exit
	// (docs/performance.md, "measured choices").
	defer func() { go p.conns.close() }()
	if p.guard == nil {
		r.Exported = r.Spans
		return r
	}
	p.guard.settle(exitAllowance)
	r.Exported, r.Unconfirmed, r.Err = p.guard.result()
	p.account(&r, p.awaitHanded())
	p.closeJournal() // all of it was exported, kept or handed over
	if p.spool != nil {
		p.keptMu.Lock()
		r.Kept, r.SpoolDir, r.KeepErr = p.kept, p.spool.Path, p.keepErr
		p.keptMu.Unlock()
	}
	if r.Err == nil && r.Lost() > r.Unconfirmed+r.Handed {
		r.Err = fmt.Errorf("%w after %s", ErrFlushTimeout, p.flushTimeout)
		if shutdownErr != nil && !errors.Is(shutdownErr, context.DeadlineExceeded) {
			r.Err = shutdownErr
		}
	}
	return r
}

// rootFlush starts the export of a trace as its root ends, once the run
// is ending (EndingAt), instead of at Shutdown: the export then goes
// beside what the caller does after the session ends (its reports and
// metrics), not after it.
type rootFlush struct{ p *Provider }

func (f rootFlush) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (f rootFlush) OnEnd(s sdktrace.ReadOnlySpan) {
	if !f.p.ending.Load() || !s.SpanContext().IsSampled() || s.Parent().IsValid() && !s.Parent().IsRemote() {
		return
	}
	steplog.Mark("root ended")
	for _, sp := range f.p.batches {
		go func() {
			ctx, cancel := f.p.flush.context(context.Background())
			defer cancel()
			_ = sp.ForceFlush(ctx) // Shutdown waits for the export it starts
		}()
	}
}
func (f rootFlush) Shutdown(context.Context) error   { return nil }
func (f rootFlush) ForceFlush(context.Context) error { return nil }

// endCounter counts ended spans meant for export (sampled), so that Report
// can say how many were lost.
type endCounter struct{ n *atomic.Int64 }

func (c endCounter) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c endCounter) OnEnd(s sdktrace.ReadOnlySpan) {
	if s.SpanContext().IsSampled() {
		c.n.Add(1)
	}
}
func (c endCounter) Shutdown(context.Context) error   { return nil }
func (c endCounter) ForceFlush(context.Context) error { return nil }
