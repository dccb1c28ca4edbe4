package tracer

import (
	"context"
	"fmt"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// fixedIDs gives every span the IDs of sc.
type fixedIDs struct{ sc trace.SpanContext }

func (f fixedIDs) NewIDs(context.Context) (trace.TraceID, trace.SpanID) {
	return f.sc.TraceID(), f.sc.SpanID()
}

func (f fixedIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID { return f.sc.SpanID() }

// A reserved span context is the one the Provider, set up later from the
// same variables, makes for the same IDs: under the parent, sampled as its
// sampler decides, whatever the sampler and the parent.
func TestReserveDecidesAsTheProvider(t *testing.T) {
	parents := map[string]trace.SpanContext{
		"no parent": {},
		"a sampled parent": trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2},
			TraceFlags: trace.FlagsSampled, Remote: true}),
		"a parent not sampled": trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{3}, SpanID: trace.SpanID{4}, Remote: true}),
	}
	samplers := [][2]string{{"", ""}, {"always_off", ""}, {"parentbased_always_off", ""},
		{"traceidratio", "0.5"}, {"parentbased_traceidratio", "0.5"}}
	for pname, parent := range parents {
		for _, sampler := range samplers {
			t.Run(fmt.Sprintf("%s, sampler %q %q", pname, sampler[0], sampler[1]), func(t *testing.T) {
				vars := map[string]string{"OTEL_TRACES_SAMPLER": sampler[0], "OTEL_TRACES_SAMPLER_ARG": sampler[1],
					"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"}
				ctx := trace.ContextWithRemoteSpanContext(context.Background(), parent)
				sampled := 0
				for range 64 { // a ratio samples some and not others
					sc := Reserve(ctx, env(vars), "session")
					if !sc.IsValid() {
						t.Fatalf("invalid span context %v", sc)
					}
					if parent.IsValid() && sc.TraceID() != parent.TraceID() {
						t.Fatalf("trace %s, want the parent's %s", sc.TraceID(), parent.TraceID())
					}
					p, err := New(context.Background(), Config{Getenv: env(vars), IDGenerator: fixedIDs{sc}})
					if err != nil {
						t.Fatal(err)
					}
					_, span := p.Tracer().Start(ctx, "session")
					if got := span.SpanContext(); !got.Equal(sc) {
						t.Fatalf("reserved %v, the provider made %v", sc, got)
					}
					span.End()
					p.Shutdown(context.Background())
					if sc.IsSampled() {
						sampled++
					}
				}
				t.Logf("%d of 64 sampled", sampled)
			})
		}
	}
}

var _ sdktrace.IDGenerator = fixedIDs{}
