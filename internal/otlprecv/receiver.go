// Package otlprecv runs real OTLP receivers, for the benchmarks and (through
// otlptest) the tests: gRPC TraceService and MetricsService on 127.0.0.1,
// speaking the protocol's protobuf messages, and what an OTLP/HTTP server
// needs to store what it receives the same way (Store, StoreMetrics).
// Nothing is mocked: the code measured or tested exports over the wire.
package otlprecv

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync"
	"time"

	metricscollectorpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	collectorpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	_ "google.golang.org/grpc/encoding/gzip" // receivers accept gzip, as collectors do
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
)

// Receiver stores every span exported to it.
type Receiver struct {
	// Endpoint is the URL to put in OTEL_EXPORTER_OTLP_ENDPOINT.
	Endpoint string

	mu           sync.Mutex
	requests     []*collectorpb.ExportTraceServiceRequest
	headers      []map[string]string
	refuse       error
	delay        time.Duration // before each trace export's answer
	metricsDelay time.Duration // before each metrics export's answer
	stalls       bool          // exports past the first answering get no answer
	answering    int
	exports      int       // trace exports that came
	required     [2]string // a header every export must carry, or it is Unauthenticated
	compressed   int       // requests whose payload arrived compressed
	countOnly    bool      // count spans by name instead of keeping requests
	names        map[string]int
	read         map[*collectorpb.ExportTraceServiceRequest]map[string]int // by the codec, not yet stored
	metrics      []*metricscollectorpb.ExportMetricsServiceRequest
	noMetrics    bool

	serve func() (stop func(), err error) // (re)starts the server on its address
	stop  func()
}

// Spans returns the resource spans received so far, in order.
func (r *Receiver) Spans() []*tracepb.ResourceSpans {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*tracepb.ResourceSpans
	for _, req := range r.requests {
		out = append(out, req.GetResourceSpans()...)
	}
	return out
}

// SpanCount is the number of spans received.
func (r *Receiver) SpanCount() int {
	r.mu.Lock()
	if r.countOnly {
		defer r.mu.Unlock()
		n := 0
		for _, c := range r.names {
			n += c
		}
		return n
	}
	r.mu.Unlock()
	n := 0
	for _, rs := range r.Spans() {
		for _, ss := range rs.GetScopeSpans() {
			n += len(ss.GetSpans())
		}
	}
	return n
}

// CountOnly makes the receiver count the spans of each name and keep
// nothing else, for streams too large to hold: Spans returns nothing.
func (r *Receiver) CountOnly() {
	r.mu.Lock()
	r.countOnly = true
	r.mu.Unlock()
}

// counting says the receiver counts spans instead of keeping them.
func (r *Receiver) counting() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.countOnly
}

// counted holds the span names the codec read from req, for store to count
// if it accepts the export.
func (r *Receiver) counted(req *collectorpb.ExportTraceServiceRequest, names map[string]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.read == nil {
		r.read = map[*collectorpb.ExportTraceServiceRequest]map[string]int{}
	}
	r.read[req] = names
}

// Names returns how many spans of each name arrived (CountOnly).
func (r *Receiver) Names() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.names))
	for k, v := range r.names {
		out[k] = v
	}
	return out
}

// Headers returns the headers (gRPC metadata) of each request, lower-case;
// an OTLP/HTTP request's path is its ":path".
func (r *Receiver) Headers() []map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]string(nil), r.headers...)
}

// RequireHeader makes the receiver refuse, as Unauthenticated, every export
// that does not carry the header key (lower-case) with value.
func (r *Receiver) RequireHeader(key, value string) {
	r.mu.Lock()
	r.required = [2]string{key, value}
	r.mu.Unlock()
}

// SawCompressed counts a request whose payload arrived compressed.
func (r *Receiver) SawCompressed() {
	r.mu.Lock()
	r.compressed++
	r.mu.Unlock()
}

// Compressed is the number of requests whose payload arrived compressed.
func (r *Receiver) Compressed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.compressed
}

// Refuse makes the receiver answer every export with err (a gRPC status
// error; HTTP maps its code), storing nothing.
func (r *Receiver) Refuse(err error) {
	r.mu.Lock()
	r.refuse = err
	r.mu.Unlock()
}

// SlowDown makes the receiver take d to answer each export, as a loaded
// collector does.
func (r *Receiver) SlowDown(d time.Duration) {
	r.mu.Lock()
	r.delay = d
	r.mu.Unlock()
}

// AnswerAfter makes the receiver take d to answer every export, of spans
// and of metrics alike, as a real collector does (one that writes what it
// gets); SlowDown slows the spans' alone.
func (r *Receiver) AnswerAfter(d time.Duration) {
	r.mu.Lock()
	r.delay, r.metricsDelay = d, d
	r.mu.Unlock()
}

// StallAfter makes the receiver answer the first n trace exports (from
// its start) and none after them: each later one is held, unanswered,
// until its caller gives up, as a collector that stops answering does.
func (r *Receiver) StallAfter(n int) {
	r.mu.Lock()
	r.stalls, r.answering = true, n
	r.mu.Unlock()
}

// Store stores a trace export as the receiver's settings say (refusing,
// stalling, slowing down, counting), and says what to answer.
func (r *Receiver) Store(ctx context.Context, req *collectorpb.ExportTraceServiceRequest, headers map[string]string) error {
	r.mu.Lock()
	delay := r.delay
	r.exports++
	stalled := r.stalls && r.exports > r.answering
	r.mu.Unlock()
	if stalled {
		<-ctx.Done()
		return status.FromContextError(ctx.Err()).Err()
	}
	time.Sleep(delay)
	r.mu.Lock()
	defer r.mu.Unlock()
	read := r.read[req]
	delete(r.read, req)
	r.headers = append(r.headers, headers)
	if r.refuse != nil {
		return r.refuse
	}
	if k := r.required[0]; k != "" && headers[k] != r.required[1] {
		return status.Errorf(codes.Unauthenticated, "missing or wrong %s", k)
	}
	if r.countOnly {
		if r.names == nil {
			r.names = map[string]int{}
		}
		for name, n := range read {
			r.names[name] += n
		}
		for _, rs := range req.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				for _, sp := range ss.GetSpans() {
					r.names[sp.GetName()]++
				}
			}
		}
		return nil
	}
	r.requests = append(r.requests, req)
	return nil
}

// Stop stops the receiver, closing its connections, as a collector that
// goes down does.
func (r *Receiver) Stop() {
	r.mu.Lock()
	stop := r.stop
	r.stop = nil
	r.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// Restart starts a stopped receiver again on the same address, keeping
// what it received.
func (r *Receiver) Restart() error {
	stop, err := r.serve()
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.stop = stop
	r.mu.Unlock()
	return nil
}

// ListenGRPC starts a gRPC receiver on addr, behind TLS when cfg is not
// nil, for use outside a test (the benchmarks); Stop stops it.
func ListenGRPC(addr string, cfg *tls.Config) (*Receiver, error) {
	return Listen(addr, cfg != nil, func(r *Receiver, lis net.Listener) func() {
		opts := []grpc.ServerOption{grpc.StatsHandler(compressionSeen{r}), grpc.ForceServerCodecV2(newCountingCodec(r))}
		if cfg != nil {
			opts = append(opts, grpc.Creds(credentials.NewTLS(cfg)))
		}
		srv := grpc.NewServer(opts...)
		collectorpb.RegisterTraceServiceServer(srv, &grpcService{r: r})
		metricscollectorpb.RegisterMetricsServiceServer(srv, &grpcMetricsService{r: r})
		go func() { _ = srv.Serve(lis) }()
		return srv.Stop
	})
}

// Listen starts a receiver that serve serves on addr, and that Restart
// serves again on the same address; serve returns what stops it.
func Listen(addr string, secure bool, serve func(*Receiver, net.Listener) func()) (*Receiver, error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	bound := lis.Addr().String()
	r := &Receiver{Endpoint: "http://" + bound}
	if secure {
		r.Endpoint = "https://" + bound
	}
	r.stop = serve(r, lis)
	r.serve = func() (func(), error) {
		lis, err := net.Listen("tcp", bound)
		if err != nil {
			return nil, fmt.Errorf("listen again: %w", err)
		}
		return serve(r, lis), nil
	}
	return r, nil
}

type grpcService struct {
	collectorpb.UnimplementedTraceServiceServer
	r *Receiver
}

func (s *grpcService) Export(ctx context.Context, req *collectorpb.ExportTraceServiceRequest) (*collectorpb.ExportTraceServiceResponse, error) {
	headers := map[string]string{}
	md, _ := metadata.FromIncomingContext(ctx)
	for k, v := range md {
		if len(v) > 0 {
			headers[k] = v[0]
		}
	}
	if err := s.r.Store(ctx, req, headers); err != nil {
		return nil, err
	}
	return &collectorpb.ExportTraceServiceResponse{}, nil
}

// compressionSeen counts gRPC requests whose payload came compressed.
type compressionSeen struct{ r *Receiver }

func (c compressionSeen) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (c compressionSeen) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}
func (c compressionSeen) HandleConn(context.Context, stats.ConnStats) {}
func (c compressionSeen) HandleRPC(_ context.Context, s stats.RPCStats) {
	if in, ok := s.(*stats.InPayload); ok && in.CompressedLength > 0 && in.CompressedLength != in.Length {
		c.r.SawCompressed()
	}
}
