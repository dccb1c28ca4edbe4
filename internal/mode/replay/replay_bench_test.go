package replay

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/redact"
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/internal/synth"
	"github.com/cursor-otel/cursor-otel/internal/synth/synthtest"
	"github.com/cursor-otel/cursor-otel/spanmap"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// BenchmarkReplayExport is replay end to end, in one process: a 20 MB
// stream of many sessions (examples and generated thinking-heavy,
// tool-heavy and balanced ones) read from a file, decoded, mapped,
// redacted and exported over OTLP/gRPC to a receiver on this machine.
// (go run ./bench, from the repository root, measures the built binary beside cat and jq.)
func BenchmarkReplayExport(b *testing.B) {
	for _, shape := range shapes(b) {
		b.Run(shape.name, func(b *testing.B) { benchReplayExport(b, shape.stream, shape.counts) })
	}
}

// shape is one of the bench's two kinds of stream, 20 MB of it.
type shape struct {
	name   string
	stream []byte
	counts synth.Counts
}

// shapes are the thinking-heavy mix (about 100 spans per MB) and the
// span-dense one: the real recordings beside this project over again with
// fresh ids (about 400 spans per MB), when they are there.
func shapes(b *testing.B) []shape {
	stream, counts, err := synthtest.MixOf(20<<20, "../../../examples/*.ndjson")
	if err != nil {
		b.Fatal(err)
	}
	out := []shape{{"mix", stream, counts}}
	if stream, counts, err = synthtest.DenseOf(20<<20, "../../../../shared/fixtures/real/*.ndjson"); err == nil && counts.Bytes > 0 {
		out = append(out, shape{"dense", stream, counts})
	}
	return out
}

// streamFile writes stream to a file for a replay, and starts a counting
// receiver for it to export to; it returns the file and the endpoint.
func streamFile(b *testing.B, stream []byte) (path, endpoint string) {
	path = filepath.Join(b.TempDir(), "stream.ndjson")
	if err := os.WriteFile(path, stream, 0o644); err != nil {
		b.Fatal(err)
	}
	recv := otlptest.StartGRPC(b)
	recv.CountOnly()
	return path, recv.Endpoint
}

func benchReplayExport(b *testing.B, stream []byte, counts synth.Counts) {
	path, endpoint := streamFile(b, stream)
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint) // the exporter reads it too
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
		if _, err := replayFile(ctx, prov.Tracer(), path, nil, opts, nil); err != nil {
			b.Fatal(err)
		}
		if r := prov.Shutdown(ctx); r.Lost() > 0 || r.Err != nil {
			b.Fatalf("%d spans lost: %v", r.Lost(), r.Err)
		}
	}
}

// BenchmarkRun is replay as the command runs it, settings, metrics and
// reports included, quiet, exporting over OTLP/gRPC to a receiver on this
// machine.
func BenchmarkRun(b *testing.B) {
	for _, shape := range shapes(b) {
		b.Run(shape.name, func(b *testing.B) { benchRun(b, shape.stream, shape.counts) })
	}
}

func benchRun(b *testing.B, stream []byte, counts synth.Counts) {
	path, endpoint := streamFile(b, stream)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "GOGC": "100", "GOMEMLIMIT": "off"}
	for k, v := range env {
		b.Setenv(k, v)
	}
	s, problems := settings.Load(settings.Flags{Output: settings.Output{Quiet: settings.Switch{Text: "true", Set: true}}}, os.Getenv)
	if problems != nil {
		b.Fatal(problems)
	}
	b.SetBytes(counts.Bytes)
	b.ReportAllocs()
	for b.Loop() {
		status := Run(context.Background(), Config{Settings: s, Files: []string{path}, Getenv: os.Getenv, Stdout: io.Discard, Stderr: os.Stderr})
		if status != 0 {
			b.Fatalf("status %d", status)
		}
	}
}
