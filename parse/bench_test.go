package parse

import (
	"bytes"
	"io"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/synth"
	"github.com/cursor-otel/cursor-otel/internal/synth/synthtest"
)

// BenchmarkDecoder reads a 1,000-model-call stream (about 20 MB).
func BenchmarkDecoder(b *testing.B) { benchDecode(b, synth.Stream(1000)) }

// BenchmarkDecoderMix reads 20 MB of many sessions: the examples and
// generated thinking-heavy, tool-heavy and balanced ones (what go run
// ./bench replays).
func BenchmarkDecoderMix(b *testing.B) {
	stream, _, err := synthtest.MixOf(20<<20, "../examples/*.ndjson")
	if err != nil {
		b.Fatal(err)
	}
	benchDecode(b, stream)
}

// BenchmarkDecoderDense reads 20 MB of the real recordings beside this
// project over again with fresh ids: many short sessions, mostly thinking
// deltas of a line each.
func BenchmarkDecoderDense(b *testing.B) {
	stream, counts, err := synthtest.DenseOf(20<<20, "../../shared/fixtures/real/*.ndjson")
	if err != nil || counts.Bytes == 0 {
		b.Skip("../shared/fixtures/real is not there")
	}
	b.Run("content", func(b *testing.B) { benchDecode(b, stream) })
	b.Run("nocontent", func(b *testing.B) { benchDecode(b, stream, WithoutContent()) })
}

func benchDecode(b *testing.B, stream []byte, opts ...Option) {
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		dec := NewDecoder(bytes.NewReader(stream), opts...)
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

// BenchmarkDecoderShellOutput reads a shell call's completion with 8 KB of
// output, a line in every 60 bytes or so (escapes to count, not keep).
func BenchmarkDecoderShellOutput(b *testing.B) {
	var out bytes.Buffer
	for out.Len() < 8<<10 {
		out.WriteString(`ok  \tgithub.com/example/pkg/sub\t0.012s\tcoverage: 71.3% of \"statements\"\n`)
	}
	line := []byte(`{"type":"tool_call","subtype":"completed","call_id":"c1","session_id":"s","tool_call":{"shellToolCall":{"args":{"command":"go test ./..."},"result":{"success":{"exitCode":0,"stdout":"` + out.String() + `","stderr":""}}}}}` + "\n")
	stream := bytes.Repeat(line, 100)
	benchDecode(b, stream, WithoutContent())
}
