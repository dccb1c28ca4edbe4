package tracer

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ParentFromEnv returns ctx holding the remote span context that a valid
// TRACEPARENT (and TRACESTATE) names, so that a CI pipeline's trace can hold
// the agent's. Absent or invalid, ctx is returned as it was and ok is false.
func ParentFromEnv(ctx context.Context, getenv func(string) string) (_ context.Context, ok bool) {
	carrier := propagation.MapCarrier{"traceparent": getenv("TRACEPARENT"), "tracestate": getenv("TRACESTATE")}
	parent := propagation.TraceContext{}.Extract(ctx, carrier)
	if !trace.SpanContextFromContext(parent).IsValid() {
		return ctx, false
	}
	return parent, true
}

// ChildEnv returns env with TRACEPARENT and TRACESTATE naming the span in
// ctx, replacing any already there, so that instrumented commands a child
// runs join the trace.
func ChildEnv(ctx context.Context, env []string) []string {
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TRACEPARENT=") && !strings.HasPrefix(kv, "TRACESTATE=") {
			out = append(out, kv)
		}
	}
	if tp := carrier.Get("traceparent"); tp != "" {
		out = append(out, "TRACEPARENT="+tp)
	}
	if ts := carrier.Get("tracestate"); ts != "" {
		out = append(out, "TRACESTATE="+ts)
	}
	return out
}
