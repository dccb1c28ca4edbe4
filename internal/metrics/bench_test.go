package metrics

import (
	"context"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// What a session's metrics cost on a run's exit path: recording its
// report (the first time: every attribute set made) and collecting.
func BenchmarkRecordOnce(b *testing.B) {
	rep := teamReport()
	rep.Team.Cwd = "."
	for b.Loop() {
		reader := sdkmetric.NewManualReader()
		r, err := New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("b"), Where{Surface: SurfaceCLI})
		if err != nil {
			b.Fatal(err)
		}
		r.Record(context.Background(), rep, Person{})
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(context.Background(), &rm); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRepositoryOf(b *testing.B) {
	for b.Loop() {
		RepositoryOf(".")
	}
}
