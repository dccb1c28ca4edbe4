// Package otlptest runs real OTLP receivers for tests: gRPC TraceService
// and MetricsService (package otlprecv's), and HTTP /v1/traces and
// /v1/metrics, on 127.0.0.1, behind TLS when asked, speaking the
// protocol's protobuf messages. Nothing is mocked: the code under test
// exports over the wire to them.
package otlptest

import (
	"compress/gzip"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	metricscollectorpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	collectorpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/cursor-otel/cursor-otel/internal/otlprecv"
)

// Receiver stores every span exported to it (otlprecv.Receiver).
type Receiver = otlprecv.Receiver

// ListenGRPC starts a gRPC receiver on addr (otlprecv.ListenGRPC).
func ListenGRPC(addr string, cfg *tls.Config) (*Receiver, error) {
	return otlprecv.ListenGRPC(addr, cfg)
}

// ListenDown returns an endpoint where nothing listens (otlprecv.ListenDown).
func ListenDown() (string, error) { return otlprecv.ListenDown() }

// StartGRPC starts a plaintext gRPC receiver; it stops when the test ends.
func StartGRPC(t testing.TB) *Receiver { return startGRPC(t, nil) }

// StartGRPCTLS starts a gRPC receiver behind TLS: its endpoint is https.
func StartGRPCTLS(t testing.TB, cfg *tls.Config) *Receiver { return startGRPC(t, cfg) }

func startGRPC(t testing.TB, cfg *tls.Config) *Receiver {
	t.Helper()
	r, err := otlprecv.ListenGRPC("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	return r
}

// StartHTTP starts an OTLP/HTTP receiver (protobuf, gzip or not) on
// /v1/traces; it stops when the test ends.
func StartHTTP(t testing.TB) *Receiver { return startHTTP(t, nil) }

// StartHTTPTLS starts an OTLP/HTTP receiver behind TLS: its endpoint is https.
func StartHTTPTLS(t testing.TB, cfg *tls.Config) *Receiver { return startHTTP(t, cfg) }

func startHTTP(t testing.TB, cfg *tls.Config) *Receiver {
	t.Helper()
	r, err := otlprecv.Listen("127.0.0.1:0", cfg != nil, func(r *Receiver, lis net.Listener) func() {
		mux := http.NewServeMux()
		// Traces at any path: a backend's own (Langfuse's
		// /api/public/otel/v1/traces) as well as the default.
		mux.HandleFunc("POST /", func(w http.ResponseWriter, req *http.Request) { serveHTTP(r, w, req) })
		mux.HandleFunc("POST /v1/metrics", func(w http.ResponseWriter, req *http.Request) { serveHTTPMetrics(r, w, req) })
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

func serveHTTP(r *Receiver, w http.ResponseWriter, req *http.Request) {
	var msg collectorpb.ExportTraceServiceRequest
	compressed, err := readHTTP(req, &msg)
	if compressed {
		r.SawCompressed()
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	headers := map[string]string{":path": req.URL.Path}
	for k, v := range req.Header {
		headers[strings.ToLower(k)] = v[0]
	}
	if err := r.Store(req.Context(), &msg, headers); err != nil {
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

func serveHTTPMetrics(r *Receiver, w http.ResponseWriter, req *http.Request) {
	var msg metricscollectorpb.ExportMetricsServiceRequest
	if _, err := readHTTP(req, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := r.StoreMetrics(&msg); err != nil {
		if status.Code(err) == codes.Unimplemented {
			http.NotFound(w, req)
			return
		}
		w.WriteHeader(httpStatus(err))
		return
	}
	writeHTTP(w, &metricscollectorpb.ExportMetricsServiceResponse{})
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

// ListenHanging returns an endpoint that accepts connections and never
// answers, and what stops it (otlprecv.ListenHanging).
func ListenHanging() (endpoint string, stop func(), err error) { return otlprecv.ListenHanging() }
