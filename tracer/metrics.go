package tracer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/exemplar"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cursor-otel/cursor-otel/internal/steplog"
)

// newMeterProvider sets up the metric SDK where OTEL_METRICS_EXPORTER
// says, with the traces' resource; nil when metrics go nowhere. A run
// records its metrics when it ends, so they are exported once (see
// exportMetrics), within the same deadline as the spans: read by hand,
// not by a periodic reader, whose shutdown would export again.
func (p *Provider) newMeterProvider(ctx context.Context, cfg Config, res *resource.Resource) (*sdkmetric.MeterProvider, error) {
	if len(p.settings.metrics.exporters) == 0 {
		return nil, nil
	}
	opts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	if f := strings.TrimSpace(cfg.Getenv("OTEL_METRICS_EXEMPLAR_FILTER")); f == "" || f == "trace_based" {
		// cursor-otel records its metrics outside any span, so the
		// default, trace_based, never keeps an exemplar; its reservoirs,
		// made for every series all the same, are work for nothing.
		opts = append(opts, sdkmetric.WithExemplarFilter(exemplar.AlwaysOffFilter))
	}
	// Retries as for spans: for a named collector, a second's worth; none
	// for the default one.
	retry, give := p.settings.metrics.userEndpoint, min(cfg.FlushTimeout/2, time.Second)
	for _, name := range p.settings.metrics.exporters {
		var exp sdkmetric.Exporter
		var err error
		s := p.settings.metrics
		switch {
		case name == "console":
			w := cfg.Console
			if w == nil {
				w = os.Stderr
			}
			exp, err = stdoutmetric.New(stdoutmetric.WithWriter(w))
		case s.protocol == "grpc":
			o := []otlpmetricgrpc.Option{otlpmetricgrpc.WithDialOption(grpc.WithConnectParams(reconnect())),
				otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{Enabled: retry, InitialInterval: 200 * time.Millisecond,
					MaxInterval: 500 * time.Millisecond, MaxElapsedTime: give})}
			if !s.userEndpoint {
				o = append(o, otlpmetricgrpc.WithEndpoint(s.endpoint), otlpmetricgrpc.WithInsecure())
			}
			var conn *grpc.ClientConn
			if d, ok := dialingFor(os.Getenv, s, "METRICS"); ok {
				var cerr error
				if conn, cerr = p.conns.get(d, metricUserAgent); cerr != nil {
					return nil, fmt.Errorf("metrics exporter for %s: %w", s.endpoint, cerr)
				}
				o = append(o, otlpmetricgrpc.WithGRPCConn(conn))
			}
			exp, err = otlpmetricgrpc.New(ctx, o...)
			if err == nil && conn != nil && wireExportable(os.Getenv, "METRICS") {
				exp = newWireMetricExporter(conn, exp)
			}
		default:
			o := []otlpmetrichttp.Option{otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: retry,
				InitialInterval: 200 * time.Millisecond, MaxInterval: 500 * time.Millisecond, MaxElapsedTime: give})}
			if !s.userEndpoint {
				o = append(o, otlpmetrichttp.WithEndpoint(s.endpoint), otlpmetrichttp.WithInsecure())
			}
			exp, err = otlpmetrichttp.New(ctx, o...)
		}
		if err != nil {
			return nil, fmt.Errorf("metrics exporter for %s: %w", p.settings.metrics.endpoint, err)
		}
		if name == "otlp" {
			p.metricGuard = &metricGuard{Exporter: exp}
			exp = p.metricGuard
		}
		r := sdkmetric.NewManualReader(sdkmetric.WithTemporalitySelector(exp.Temporality), sdkmetric.WithAggregationSelector(exp.Aggregation))
		p.metricOuts = append(p.metricOuts, metricOut{reader: r, exp: exp})
		opts = append(opts, sdkmetric.WithReader(r))
	}
	return sdkmetric.NewMeterProvider(opts...), nil
}

// metricOut is one metrics exporter and the reader that collects for it.
type metricOut struct {
	reader *sdkmetric.ManualReader
	exp    sdkmetric.Exporter
}

// exportMetrics collects what was recorded and exports it, each exporter
// beside the others.
func (p *Provider) exportMetrics(ctx context.Context) error {
	errs := make([]error, len(p.metricOuts))
	var wg sync.WaitGroup
	for i, o := range p.metricOuts {
		wg.Go(func() {
			var rm metricdata.ResourceMetrics
			if errs[i] = o.reader.Collect(ctx, &rm); errs[i] == nil {
				steplog.Mark("metrics export sent")
				errs[i] = o.exp.Export(ctx, &rm)
				steplog.Mark("metrics export answered")
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// metricsAtTraceEnd starts the metrics' export as a trace ends once the
// run is ending (EndingAt): beside the trace's own export, not after it
// at Shutdown. recorded counts the traces whose metrics were recorded.
func (p *Provider) metricsAtTraceEnd() {
	p.recorded.Add(1)
	if p.mp == nil || !p.ending.Load() {
		return
	}
	p.earlyOnce.Do(func() {
		p.early = make(chan struct{})
		go func() {
			defer close(p.early)
			ctx, cancel := p.flush.context(context.Background())
			defer cancel()
			p.earlyCovers = p.recorded.Load()
			p.earlyErr = p.exportMetrics(ctx)
		}()
	})
}

// shutdownMetrics exports the metrics, unless the export at a trace's end
// already took all there are, and shuts the exporters down.
func (p *Provider) shutdownMetrics(ctx context.Context) error {
	var err error
	exported := false
	p.earlyOnce.Do(func() {}) // none starts from now on
	if p.early != nil {
		select {
		case <-p.early:
			err, exported = p.earlyErr, p.earlyCovers == p.recorded.Load()
		case <-ctx.Done():
			err, exported = ctx.Err(), true
		}
	}
	if !exported {
		err = p.exportMetrics(ctx)
	}
	errs := []error{err, p.mp.Shutdown(ctx)}
	for _, o := range p.metricOuts {
		errs = append(errs, o.exp.Shutdown(ctx))
	}
	return errors.Join(errs...)
}

// metricUserAgent is the OTLP/gRPC metric exporter's user agent, which a
// connection cursor-otel dials for it keeps.
var metricUserAgent = "OTel Go OTLP over gRPC metrics exporter/" + otlpmetricgrpc.Version()

// Meter is the meter cursor-otel records its metrics with; one that
// records nothing when metrics go nowhere.
func (p *Provider) Meter() metric.Meter {
	if p.mp == nil {
		return noop.NewMeterProvider().Meter("")
	}
	return p.mp.Meter("github.com/cursor-otel/cursor-otel", metric.WithInstrumentationVersion(p.version), metric.WithSchemaURL(semconv.SchemaURL))
}

// metricGuard remembers what became of the OTLP metrics export.
type metricGuard struct {
	sdkmetric.Exporter
	mu          sync.Mutex
	exported    int // data points the collector accepted
	err         error
	unsupported bool // the collector takes no metrics
}

// takesNoMetrics says an export failed because the collector has no
// metrics pipeline (Jaeger's OTLP receiver takes spans only): metrics are
// then not sent, and that is no failure to warn of on every run.
func takesNoMetrics(err error) bool {
	if st, ok := status.FromError(err); ok && st.Code() == codes.Unimplemented {
		return true
	}
	return strings.Contains(err.Error(), "404 Not Found")
}

func (g *metricGuard) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	err := g.Exporter.Export(ctx, rm)
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil && takesNoMetrics(err) {
		g.unsupported = true
		return nil
	}
	if err != nil {
		g.err = err
		return err
	}
	g.exported += points(rm)
	return nil
}

func (g *metricGuard) result() (exported int, unsupported bool, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.exported, g.unsupported, g.err
}

// points counts the data points of an export.
func points(rm *metricdata.ResourceMetrics) int {
	n := 0
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				n += len(d.DataPoints)
			case metricdata.Histogram[int64]:
				n += len(d.DataPoints)
			case metricdata.Sum[float64]:
				n += len(d.DataPoints)
			case metricdata.Sum[int64]:
				n += len(d.DataPoints)
			case metricdata.Gauge[float64]:
				n += len(d.DataPoints)
			case metricdata.Gauge[int64]:
				n += len(d.DataPoints)
			}
		}
	}
	return n
}
