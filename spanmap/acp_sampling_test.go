package spanmap

import (
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// A ratio sampler decides a turn as a whole: its root's probe takes the
// decision, which the spans under the root follow, so that no trace is
// kept without its root, nor a root without its spans. (A sampler
// following the parent's decision, and one deciding by trace ID alone.)
func TestACPRatioSamplerKeepsWholeTurns(t *testing.T) {
	for name, sampler := range map[string]sdktrace.Sampler{
		"parent based": sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0.5)),
		"trace id":     sdktrace.TraceIDRatioBased(0.5),
	} {
		t.Run(name, func(t *testing.T) {
			exp := tracetest.NewInMemoryExporter()
			ids := &testIDs{}
			tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(&IDGenerator{rng: seeded(0xfe)}), sdktrace.WithSampler(sampler), sdktrace.WithSyncer(exp))
			a := ids.acp(tp.Tracer(""), Options{})
			d := parse.NewACPDecoder()
			at := time.Unix(1_800_000_000, 0)
			const turns = 64
			for n := range turns {
				for _, l := range acpBenchTurn(n) {
					if m, ok := d.Decode(l[0] == '>', []byte(l[1:])); ok {
						at = at.Add(time.Millisecond)
						a.Observe(m, at)
					}
				}
			}
			a.Close(at, "the agent exited")
			roots, spans := map[trace.TraceID]bool{}, map[trace.TraceID]int{}
			for _, s := range exp.GetSpans() {
				if !s.Parent.IsValid() {
					roots[s.SpanContext.TraceID()] = true
				} else {
					spans[s.SpanContext.TraceID()]++
				}
			}
			for id, n := range spans {
				if !roots[id] {
					t.Errorf("trace %s: %d spans kept, its root dropped", id, n)
				}
			}
			for id := range roots {
				if spans[id] != 6 { // two tools and their file reads, the tool asking permission and its wait
					t.Errorf("trace %s: its root kept with %d spans, want 6", id, spans[id])
				}
			}
			if len(roots) == 0 || len(roots) == turns {
				t.Errorf("%d of %d turns kept: the sampler decided nothing", len(roots), turns)
			}
		})
	}
}
