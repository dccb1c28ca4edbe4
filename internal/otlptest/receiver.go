// Package otlptest runs real OTLP receivers for tests: gRPC TraceService
// and MetricsService, and HTTP /v1/traces and /v1/metrics, on 127.0.0.1,
// speaking the protocol's protobuf messages. Nothing is mocked: the code under test
// exports over the wire to them.
package otlptest

import (
	"compress/gzip"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
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
	"google.golang.org/protobuf/proto"
)

// Receiver stores every span exported to it.
type Receiver struct {
	// Endpoint is the URL to put in OTEL_EXPORTER_OTLP_ENDPOINT.
	Endpoint string

	mu         sync.Mutex
	requests   []*collectorpb.ExportTraceServiceRequest
	headers    []map[string]string
	refuse     error
	delay      time.Duration
	required   [2]string // a header every export must carry, or it is Unauthenticated
	compressed int       // requests whose payload arrived compressed
	countOnly  bool      // count spans by name instead of keeping requests
	names      map[string]int
	read       map[*collectorpb.ExportTraceServiceRequest]map[string]int // by the codec, not yet stored
	metrics    []*metricscollectorpb.ExportMetricsServiceRequest
	noMetrics  bool

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

func (r *Receiver) store(req *collectorpb.ExportTraceServiceRequest, headers map[string]string) error {
	r.mu.Lock()
	delay := r.delay
	r.mu.Unlock()
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

// StartGRPC starts a plaintext gRPC receiver; it stops when the test ends.
func StartGRPC(t testing.TB) *Receiver { return startGRPC(t, nil) }

// StartGRPCTLS starts a gRPC receiver behind TLS: its endpoint is https.
func StartGRPCTLS(t testing.TB, cfg *tls.Config) *Receiver { return startGRPC(t, cfg) }

func startGRPC(t testing.TB, cfg *tls.Config) *Receiver {
	t.Helper()
	r, err := ListenGRPC("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	return r
}

// ListenGRPC starts a gRPC receiver on addr, behind TLS when cfg is not
// nil, for use outside a test (the benchmarks); Stop stops it.
func ListenGRPC(addr string, cfg *tls.Config) (*Receiver, error) {
	return listen(addr, cfg != nil, func(r *Receiver, lis net.Listener) func() {
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

// listen starts a receiver that serve serves on addr, and that Restart
// serves again on the same address; serve returns what stops it.
func listen(addr string, secure bool, serve func(*Receiver, net.Listener) func()) (*Receiver, error) {
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
	if err := s.r.store(req, headers); err != nil {
		return nil, err
	}
	return &collectorpb.ExportTraceServiceResponse{}, nil
}

// StartHTTP starts an OTLP/HTTP receiver (protobuf, gzip or not) on
// /v1/traces; it stops when the test ends.
func StartHTTP(t testing.TB) *Receiver { return startHTTP(t, nil) }

// StartHTTPTLS starts an OTLP/HTTP receiver behind TLS: its endpoint is https.
func StartHTTPTLS(t testing.TB, cfg *tls.Config) *Receiver { return startHTTP(t, cfg) }

func startHTTP(t testing.TB, cfg *tls.Config) *Receiver {
	t.Helper()
	r, err := listen("127.0.0.1:0", cfg != nil, func(r *Receiver, lis net.Listener) func() {
		mux := http.NewServeMux()
		// Traces at any path: a backend's own (Langfuse's
		// /api/public/otel/v1/traces) as well as the default.
		mux.HandleFunc("POST /", r.serveHTTP)
		mux.HandleFunc("POST /v1/metrics", r.serveHTTPMetrics)
		srv := &http.Server{Handler: mux}
		if cfg != nil {
			lis = tls.NewListener(lis, cfg)
		}
		go func() { _ = srv.Serve(lis) }()
		return func() { _ = srv.Close() }
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	return r
}

func (r *Receiver) serveHTTP(w http.ResponseWriter, req *http.Request) {
	var msg collectorpb.ExportTraceServiceRequest
	compressed, err := readHTTP(req, &msg)
	if compressed {
		r.mu.Lock()
		r.compressed++
		r.mu.Unlock()
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	headers := map[string]string{":path": req.URL.Path}
	for k, v := range req.Header {
		headers[strings.ToLower(k)] = v[0]
	}
	if err := r.store(&msg, headers); err != nil {
		w.WriteHeader(httpStatus(err))
		return
	}
	writeHTTP(w, &collectorpb.ExportTraceServiceResponse{})
}

// readHTTP reads an OTLP/HTTP request's protobuf body into msg, gunzipped
// if it came compressed, and says whether it did.
func readHTTP(req *http.Request, msg proto.Message) (compressed bool, err error) {
	body := io.Reader(req.Body)
	if req.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(req.Body)
		if err != nil {
			return true, err
		}
		body, compressed = gz, true
	}
	b, err := io.ReadAll(body)
	if err != nil {
		return compressed, err
	}
	if req.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(b, msg) != nil {
		return compressed, fmt.Errorf("want an application/x-protobuf %s", msg.ProtoReflect().Descriptor().Name())
	}
	return compressed, nil
}

// writeHTTP answers an OTLP/HTTP request with msg.
func writeHTTP(w http.ResponseWriter, msg proto.Message) {
	out, _ := proto.Marshal(msg)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
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
		c.r.mu.Lock()
		c.r.compressed++
		c.r.mu.Unlock()
	}
}

func httpStatus(err error) int {
	switch status.Code(err) {
	case codes.Unauthenticated:
		return http.StatusUnauthorized
	case codes.PermissionDenied:
		return http.StatusForbidden
	case codes.Unavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}
