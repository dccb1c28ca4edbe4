package spanmap

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// An event program: each three bytes make one line of a stream (see
// programLine), so that the fuzzer composes events in any order, with ids
// from small sets (duplicates, completions without starts, starts without
// completions), fields left out and times going back.
//
// Whatever the program, the recorder does not panic, ends every span it
// starts, keeps the span model's shape, and holds no more state than its
// open spans: tool calls at most the distinct call ids in play, model
// calls open at most one more than the tool calls holding them open.
func FuzzEventOrders(f *testing.F) {
	f.Add([]byte{0, 0, 0, 3, 1, 0, 4, 1, 0, 6, 1, 0, 7, 1, 0, 10, 0, 0})               // init, thinking, text, tool, result
	f.Add([]byte{0, 0, 0, 6, 1, 0, 6, 2, 0, 7, 2, 0, 7, 1, 0, 7, 1, 0, 10, 0, 0})      // parallel tools out of order, a duplicate completion
	f.Add([]byte{7, 3, 0, 6, 4, 0x3f, 0, 0, 0, 0, 0, 0, 12, 0, 0, 13, 0, 0, 11, 0, 0}) // completion first, fields left out, two inits, junk
	f.Add([]byte{0, 0, 2, 5, 9, 4, 6, 9, 4, 8, 9, 4, 9, 9, 4, 11, 0, 4})               // times going back, hyphenated tools
	f.Add([]byte{0, 0, 0, 6, 1, 0, 12, 1, 64, 7, 1, 0, 12, 1, 192, 10, 0, 0})          // a wait for a tool answered after it completed
	f.Add([]byte{0, 0, 0, 6, 1, 0, 12, 1, 64, 12, 2, 64, 12, 1, 192, 7, 1, 0})         // waits asked twice, one never answered
	f.Fuzz(func(t *testing.T, program []byte) {
		if len(program) > 3*2000 {
			return
		}
		exp := tracetest.NewInMemoryExporter()
		var started atomic.Int64
		tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(NewIDGenerator()), sdktrace.WithSpanProcessor(startCounter{&started}), sdktrace.WithSyncer(exp))
		capture := len(program)%2 == 1
		rec := NewStream(context.Background(), tp.Tracer("fuzz"), Options{CaptureContent: capture, MaxContent: 32,
			Now: func() time.Time { return time.Unix(1790000000, 0) }})
		for i := 0; i+2 < len(program); i += 3 {
			rec.Record(decodeLine(programLine(program[i], program[i+1], program[i+2], i/3), i/3+1), time.Time{})
			if s := rec.sess; s != nil {
				if len(s.tools) > callIDs {
					t.Fatalf("%d tool calls held open, from %d call ids", len(s.tools), callIDs)
				}
				if len(s.open) > len(s.tools)+1 {
					t.Fatalf("%d model calls open for %d tool calls", len(s.open), len(s.tools))
				}
				if len(s.calls) > len(s.open) {
					t.Fatalf("%d model calls remembered by id, %d open", len(s.calls), len(s.open))
				}
			}
			if s := rec.sess; s != nil && len(s.waiting) > maxWaiting {
				t.Fatalf("%d events waiting", len(s.waiting))
			}
		}
		rec.Finish(End{})
		spans := exp.GetSpans()
		if int64(len(spans)) != started.Load() {
			t.Fatalf("%d spans started, %d ended", started.Load(), len(spans))
		}
		checkInvariants(t, spans)
	})
}

// callIDs and modelCallIDs are the ids a program draws from.
const (
	callIDs      = 8
	modelCallIDs = 4
)

// programLine makes line n of a program from three bytes: kind picks the
// event; ids picks the call id (low 3 bits) and model call id (next 2);
// flags leave out the timestamp (bit 0), session id (1), model call id (2),
// move the time back (3), fail the tool (4), reject it (5); with kind 12
// ask the person (6), or answer (6 and 7).
func programLine(kind, ids, flags byte, n int) []byte {
	call := fmt.Sprintf("call_%d", ids%callIDs)
	mc := fmt.Sprintf(`,"model_call_id":"mc%d"`, (ids>>3)%modelCallIDs)
	if flags&4 != 0 {
		mc = ""
	}
	ts := 1790000000000 + int64(n)*100
	if flags&8 != 0 {
		ts -= 5000
	}
	common := fmt.Sprintf(`,"timestamp_ms":%d`, ts)
	if flags&1 != 0 {
		common = ""
	}
	if flags&2 == 0 {
		common += `,"session_id":"s"`
	}
	result := `{"success":{"exitCode":0,"stdout":"ok\n"}}`
	switch {
	case flags&32 != 0:
		result = `{"rejected":{"reason":"not allowed"}}`
	case flags&16 != 0:
		result = `{"success":{"exitCode":1,"stderr":"FAIL"}}`
	}
	switch kind % 14 {
	case 0:
		return fmt.Appendf(nil, `{"type":"system","subtype":"init","model":"Auto"%s}`, common)
	case 1:
		return fmt.Appendf(nil, `{"type":"user","message":{"content":[{"type":"text","text":"go"}]}%s}`, common)
	case 2:
		return fmt.Appendf(nil, `{"type":"thinking","subtype":"delta","text":"hm"%s}`, common)
	case 3:
		return fmt.Appendf(nil, `{"type":"thinking","subtype":"completed"%s}`, common)
	case 4:
		return fmt.Appendf(nil, `{"type":"assistant","message":{"content":[{"type":"text","text":"ok"}]}%s%s}`, mc, common)
	case 5:
		return fmt.Appendf(nil, `{"type":"assistant","text":"o"%s}`, common) // a partial-output delta
	case 6:
		return fmt.Appendf(nil, `{"type":"tool_call","subtype":"started","call_id":%q,"tool_call":{"shellToolCall":{"args":{"command":"make"}}}%s%s}`, call, mc, common)
	case 7:
		return fmt.Appendf(nil, `{"type":"tool_call","subtype":"completed","call_id":%q,"tool_call":{"shellToolCall":{"args":{"command":"make"},"result":%s}}%s%s}`, call, result, mc, common)
	case 8:
		return fmt.Appendf(nil, `{"type":"tool-call-started","tool_name":"Read","tool_call_id":%q,"parameters":{"path":"a.go"}%s}`, call, common)
	case 9:
		return fmt.Appendf(nil, `{"type":"tool-call-completed","tool_name":"Read","tool_call_id":%q,"duration_ms":%d,"result":{"success":%v}%s}`, call, ids, flags&16 == 0, common)
	case 10:
		return fmt.Appendf(nil, `{"type":"result","subtype":"success","is_error":%v,"result":"done","duration_ms":1000%s}`, flags&16 != 0, common)
	case 11:
		return fmt.Appendf(nil, `{"type":"connection","subtype":"reconnecting"%s}`, common)
	case 12:
		if flags&64 != 0 {
			// A wait on the person: the question, or with 128 its answer,
			// for the command a tool call runs.
			if flags&128 != 0 {
				return fmt.Appendf(nil, `{"type":"interaction_query","subtype":"response","id":%d,"response":{"shellRequestResponse":{"approved":{}}}%s%s}`, ids%3, mc, common)
			}
			return fmt.Appendf(nil, `{"type":"interaction_query","subtype":"request","id":%d,"query":{"shellRequestQuery":{"command":"make"}}%s%s}`, ids%3, mc, common)
		}
		return fmt.Appendf(nil, `{"type":"never_seen_before","subtype":"x"%s}`, common)
	}
	return []byte(`{"type":"tool_call","subtype":`) // cut short
}

// startCounter counts the spans started, but for the spans a session
// starts only to learn its IDs and the sampler's decision, which are never
// ended (they have no attributes).
type startCounter struct{ n *atomic.Int64 }

func (c startCounter) OnStart(_ context.Context, s sdktrace.ReadWriteSpan) {
	if len(s.Attributes()) > 0 {
		c.n.Add(1)
	}
}
func (c startCounter) OnEnd(sdktrace.ReadOnlySpan)      {}
func (c startCounter) Shutdown(context.Context) error   { return nil }
func (c startCounter) ForceFlush(context.Context) error { return nil }
