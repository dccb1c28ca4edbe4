package parse

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/synth"
)

// BenchmarkDecoder reads a 1,000-model-call stream (about 20 MB): the
// throughput figure in the README.
func BenchmarkDecoder(b *testing.B) {
	stream := synth.Stream(1000)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		dec := NewDecoder(bytes.NewReader(stream))
		for {
			if _, err := dec.Next(); err == io.EOF {
				break
			}
		}
	}
}

// BenchmarkDecoderHugeLine reads one 5 MB tool result line.
func BenchmarkDecoderHugeLine(b *testing.B) {
	line := synth.HugeLine(5 << 20)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		dec := NewDecoder(bytes.NewReader(line))
		if ev, err := dec.Next(); err != nil || ev.(*ToolCompleted).Call.Facts.OutputBytes == nil {
			b.Fatalf("got %v, %v", ev, err)
		}
	}
}

// BenchmarkDecoderMix reads 20 MB of many sessions: the examples and
// generated thinking-heavy, tool-heavy and balanced ones (what go run
// ./bench replays).
func BenchmarkDecoderMix(b *testing.B) {
	stream := mixStream(b)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		dec := NewDecoder(bytes.NewReader(stream))
		for {
			if _, err := dec.Next(); err == io.EOF {
				break
			}
		}
	}
}

func mixStream(b *testing.B) []byte {
	paths, _ := filepath.Glob("../examples/*.ndjson")
	var recs [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, data)
	}
	var stream bytes.Buffer
	if _, err := synth.Mix(&stream, 20<<20, recs, synth.Counts{}); err != nil {
		b.Fatal(err)
	}
	return stream.Bytes()
}
