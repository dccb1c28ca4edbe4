package otlptest

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"

	metricscollectorpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Metrics returns the resource metrics received so far, in order.
func (r *Receiver) Metrics() []*metricspb.ResourceMetrics {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*metricspb.ResourceMetrics
	for _, req := range r.metrics {
		out = append(out, req.GetResourceMetrics()...)
	}
	return out
}

// TakeNoMetrics makes the receiver answer metrics exports as a collector
// with no metrics pipeline does (Jaeger): gRPC Unimplemented, HTTP 404.
func (r *Receiver) TakeNoMetrics() {
	r.mu.Lock()
	r.noMetrics = true
	r.mu.Unlock()
}

func (r *Receiver) storeMetrics(req *metricscollectorpb.ExportMetricsServiceRequest) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.noMetrics {
		return status.Error(codes.Unimplemented, "unknown service opentelemetry.proto.collector.metrics.v1.MetricsService")
	}
	if r.refuse != nil {
		return r.refuse
	}
	r.metrics = append(r.metrics, req)
	return nil
}

type grpcMetricsService struct {
	metricscollectorpb.UnimplementedMetricsServiceServer
	r *Receiver
}

func (s *grpcMetricsService) Export(_ context.Context, req *metricscollectorpb.ExportMetricsServiceRequest) (*metricscollectorpb.ExportMetricsServiceResponse, error) {
	if err := s.r.storeMetrics(req); err != nil {
		return nil, err
	}
	return &metricscollectorpb.ExportMetricsServiceResponse{}, nil
}

func (r *Receiver) serveHTTPMetrics(w http.ResponseWriter, req *http.Request) {
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
	var msg metricscollectorpb.ExportMetricsServiceRequest
	if err != nil || proto.Unmarshal(b, &msg) != nil {
		http.Error(w, "want an application/x-protobuf ExportMetricsServiceRequest", http.StatusBadRequest)
		return
	}
	if err := r.storeMetrics(&msg); err != nil {
		if status.Code(err) == codes.Unimplemented {
			http.NotFound(w, req)
			return
		}
		w.WriteHeader(httpStatus(err))
		return
	}
	out, _ := proto.Marshal(&metricscollectorpb.ExportMetricsServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}
