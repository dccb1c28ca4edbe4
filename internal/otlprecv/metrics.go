package otlprecv

import (
	"context"
	"time"

	metricscollectorpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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

// StoreMetrics stores a metrics export, or says why not.
func (r *Receiver) StoreMetrics(req *metricscollectorpb.ExportMetricsServiceRequest) error {
	r.mu.Lock()
	delay := r.metricsDelay
	r.mu.Unlock()
	time.Sleep(delay)
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
	if err := s.r.StoreMetrics(req); err != nil {
		return nil, err
	}
	return &metricscollectorpb.ExportMetricsServiceResponse{}, nil
}
