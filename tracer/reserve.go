package tracer

import (
	"context"
	"os"

	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Reserve is the span context that a Provider set up from the same
// variables would give a span named name started now in ctx: a trace ID
// (the parent's, if ctx holds one), a span ID, and the sampler's decision
// (OTEL_TRACES_SAMPLER, which decides the same for the same IDs and
// parent). It is worked out without the exporters, the resource or the
// connection, in microseconds: a wrapper hands it to the program it starts
// (ChildEnv), and sets up the Provider while that program runs. A wrong
// sampler setting reads as the default, as New's caller then runs
// NewNoExport.
func Reserve(ctx context.Context, getenv func(string) string, name string) trace.SpanContext {
	if getenv == nil {
		getenv = os.Getenv
	}
	sampler, _ := readSampler(getenv, nil)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler), sdktrace.WithResource(resource.Empty()))
	_, span := tp.Tracer("").Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal))
	return span.SpanContext()
}
