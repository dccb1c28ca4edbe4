// Package otlptest runs real OTLP trace receivers for tests: a gRPC
// TraceService and an HTTP /v1/traces endpoint on 127.0.0.1, speaking the
// protocol's protobuf messages. Nothing is mocked: the code under test
// exports over the wire to them.
package otlptest

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Receiver stores every span exported to it.
type Receiver struct {
	// Endpoint is the URL to put in OTEL_EXPORTER_OTLP_ENDPOINT.
	Endpoint string

	mu       sync.Mutex
	requests []*collectorpb.ExportTraceServiceRequest
	headers  []map[string]string
	refuse   error
	delay    time.Duration
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
	n := 0
	for _, rs := range r.Spans() {
		for _, ss := range rs.GetScopeSpans() {
			n += len(ss.GetSpans())
		}
	}
	return n
}

// Headers returns the headers (gRPC metadata) of each request, lower-case.
func (r *Receiver) Headers() []map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]string(nil), r.headers...)
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
	r.headers = append(r.headers, headers)
	if r.refuse != nil {
		return r.refuse
	}
	r.requests = append(r.requests, req)
	return nil
}

// StartGRPC starts a gRPC receiver; it stops when the test ends.
func StartGRPC(t testing.TB, opts ...grpc.ServerOption) *Receiver {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Receiver{Endpoint: "http://" + lis.Addr().String()}
	srv := grpc.NewServer(opts...)
	collectorpb.RegisterTraceServiceServer(srv, &grpcService{r: r})
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return r
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
func StartHTTP(t testing.TB) *Receiver {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Receiver{Endpoint: "http://" + lis.Addr().String()}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", r.serveHTTP)
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() { _ = srv.Close() })
	return r
}

func (r *Receiver) serveHTTP(w http.ResponseWriter, req *http.Request) {
	body := io.Reader(req.Body)
	if req.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	b, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg collectorpb.ExportTraceServiceRequest
	if req.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(b, &msg) != nil {
		http.Error(w, "want an application/x-protobuf ExportTraceServiceRequest", http.StatusBadRequest)
		return
	}
	headers := map[string]string{}
	for k, v := range req.Header {
		headers[http.CanonicalHeaderKey(k)] = v[0]
	}
	if err := r.store(&msg, headers); err != nil {
		w.WriteHeader(httpStatus(err))
		return
	}
	out, _ := proto.Marshal(&collectorpb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = io.Copy(w, bytes.NewReader(out))
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
