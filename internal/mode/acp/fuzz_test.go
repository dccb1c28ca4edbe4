package acp

import (
	"bytes"
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/cursor-otel/cursor-otel/parse"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

// FuzzACPTap: any bytes, in either direction, cut into any chunks: the
// lines the tracer reads are the bytes that crossed (the pumps forward
// them untouched, before the tap), and neither the JSON-RPC reader nor
// the span model crashes on them.
func FuzzACPTap(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}`+"\n"), []byte(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`+"\n"), uint8(3))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"a","method":"session/new","params":{}}`+"\r\nnot json\n"), []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t","status":"failed"}}}`), uint8(1))
	f.Add([]byte(`{"jsonrpc":"2.0","id":2,"result":{"outcome":{"outcome":"cancelled"}}}`+"\n"), []byte(`{"jsonrpc":"2.0","id":2,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t"}}}`+"\n{\"jsonrpc\":\"2.0\",\"id\":null}\n"), uint8(7))
	f.Fuzz(func(t *testing.T, editor, agentOut []byte, cut uint8) {
		model := spanmap.NewACP(context.Background(), noop.NewTracerProvider().Tracer(""), spanmap.Options{CaptureContent: true, Redact: func(s string) string { return s }})
		q := newTapQueue()
		step := int(cut)%17 + 1
		at := time.Unix(0, 0)
		for i := 0; i < max(len(editor), len(agentOut)); i += step {
			if i < len(editor) {
				q.push(true, editor[i:min(i+step, len(editor))], at)
			}
			if i < len(agentOut) {
				q.push(false, agentOut[i:min(i+step, len(agentOut))], at)
			}
			at = at.Add(time.Millisecond)
		}
		q.close()
		var lines [2]lineSplitter
		var got [2]bytes.Buffer
		d := parse.NewACPDecoder()
		for {
			c, ok := q.pop()
			if !ok {
				break
			}
			lines[dir(c.fromEditor)].feed(c, func(line []byte) {
				got[dir(c.fromEditor)].Write(line)
				if m, ok := d.Decode(c.fromEditor, line); ok {
					model.Observe(m, c.at)
				}
			})
		}
		model.Close(at, "ended")
		for d, in := range [][]byte{agentOut, editor} {
			whole := in[:bytes.LastIndexByte(in, '\n')+1]
			if !bytes.Equal(got[d].Bytes(), whole) {
				t.Fatalf("direction %d: the tracer read %q of %q", d, got[d].Bytes(), in)
			}
		}
	})
}
