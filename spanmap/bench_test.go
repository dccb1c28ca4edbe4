package spanmap

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cursor-otel/cursor-otel/internal/synth"
	"github.com/cursor-otel/cursor-otel/internal/synth/synthtest"
	"github.com/cursor-otel/cursor-otel/parse"
)

// BenchmarkReplay is replay's whole pipeline short of the network: decode,
// map to spans, batch for export (into a no-op exporter). About 20 MB,
// 3,002 spans a run.
func BenchmarkReplay(b *testing.B) {
	stream := synth.Stream(1000)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(NewIDGenerator()), sdktrace.WithBatcher(tracetest.NewNoopExporter(), sdktrace.WithBlocking()))
		rec := NewStream(context.Background(), tp.Tracer("bench"), Options{})
		dec := parse.NewDecoder(bytes.NewReader(stream))
		for {
			ev, err := dec.Next()
			if err == io.EOF {
				break
			}
			rec.Record(ev, time.Time{})
		}
		rec.Finish(End{})
		_ = tp.Shutdown(context.Background())
	}
}

// BenchmarkRecord is the span model alone: the events of 20 MB of many
// sessions (examples, thinking-heavy, tool-heavy and balanced ones),
// decoded beforehand, mapped to spans and batched into a no-op exporter.
// Throughput is of the stream the events came from.
func BenchmarkRecord(b *testing.B) {
	stream, counts, err := synthtest.MixOf(20<<20, "../examples/*.ndjson")
	if err != nil {
		b.Fatal(err)
	}
	benchRecord(b, stream, counts)
}

// BenchmarkRecordDense is BenchmarkRecord on 20 MB of the real recordings
// beside this project over again with fresh ids: many short sessions.
func BenchmarkRecordDense(b *testing.B) {
	stream, counts, err := synthtest.DenseOf(20<<20, "../../shared/fixtures/real/*.ndjson")
	if err != nil || counts.Bytes == 0 {
		b.Skip("../shared/fixtures/real is not there")
	}
	benchRecord(b, stream, counts)
}

func benchRecord(b *testing.B, stream []byte, counts synth.Counts) {
	var events []parse.Event
	dec := parse.NewDecoder(bytes.NewReader(stream))
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		events = append(events, ev)
	}
	b.SetBytes(counts.Bytes)
	b.ReportAllocs()
	for b.Loop() {
		tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(NewIDGenerator()), sdktrace.WithBatcher(tracetest.NewNoopExporter(), sdktrace.WithBlocking()))
		rec := NewStream(context.Background(), tp.Tracer("bench"), Options{})
		for _, ev := range events {
			rec.Record(ev, time.Time{})
		}
		rec.Finish(End{})
		_ = tp.Shutdown(context.Background())
	}
}
