package replay

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/synth"
	"github.com/cursor-otel/cursor-otel/redact"
	"github.com/cursor-otel/cursor-otel/spanmap"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// BenchmarkReplayExport is replay end to end, in one process: a 20 MB
// stream of many sessions (examples and generated thinking-heavy,
// tool-heavy and balanced ones) read from a file, decoded, mapped,
// redacted and exported over OTLP/gRPC to a receiver on this machine.
// (go run ./bench, from the repository root, measures the built binary beside cat and jq.)
func BenchmarkReplayExport(b *testing.B) {
	stream, counts, err := synth.MixOf(20<<20, "../examples/*.ndjson")
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "stream.ndjson")
	if err := os.WriteFile(path, stream, 0o644); err != nil {
		b.Fatal(err)
	}
	recv := otlptest.StartGRPC(b)
	recv.CountOnly()
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.Endpoint) // the exporter reads it too
	redactor := redact.New(redact.Options{})
	opts := spanmap.Options{Redact: redactor.Redact}
	ctx := context.Background()
	b.SetBytes(counts.Bytes)
	b.ReportAllocs()
	for b.Loop() {
		prov, err := tracer.New(ctx, tracer.Config{IDGenerator: spanmap.NewIDGenerator()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := replayFile(ctx, prov.Tracer(), path, nil, opts); err != nil {
			b.Fatal(err)
		}
		if r := prov.Shutdown(ctx); r.Lost() > 0 || r.Err != nil {
			b.Fatalf("%d spans lost: %v", r.Lost(), r.Err)
		}
	}
}
