package spanmap

import (
	"context"
	"math/rand/v2"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// testIDs give an ACP test's spans the same IDs on every run: the
// provider's IDGenerator (a root's IDs, by its probe) and each ACP (the
// spans under a root) draw from sources of their own, each seeded.
type testIDs struct{ acps byte }

// provider is a TracerProvider whose span IDs are testIDs', with the
// processors given.
func (ids *testIDs) provider(processors ...sdktrace.SpanProcessor) *sdktrace.TracerProvider {
	opts := []sdktrace.TracerProviderOption{sdktrace.WithIDGenerator(&IDGenerator{rng: seeded(0xff)})}
	for _, p := range processors {
		opts = append(opts, sdktrace.WithSpanProcessor(p))
	}
	return sdktrace.NewTracerProvider(opts...)
}

// acp is an ACP tracing into tracer, its spans' IDs from a source of
// its own (two agent processes of one test choose different IDs).
func (ids *testIDs) acp(tracer trace.Tracer, opts Options) *ACP {
	ids.acps++
	a := NewACP(context.Background(), tracer, opts)
	a.rng = seeded(ids.acps)
	return a
}

func seeded(n byte) *rand.Rand { return rand.New(rand.NewChaCha8([32]byte{n})) }
