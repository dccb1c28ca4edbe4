package tracer

import (
	"context"
	"sync"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Trace is every span of one trace, as the SDK exported them.
type Trace struct {
	Spans []sdktrace.ReadOnlySpan
	// Finished is false for spans handed over at shutdown whose root never
	// ended.
	Finished bool
}

// OnTraceEnd is a span processor that holds each trace's spans until its
// root (a span with no parent in this process) ends, then hands them all to
// fn. What never finished is handed over at shutdown.
func OnTraceEnd(fn func(Trace)) sdktrace.SpanProcessor {
	return &traceCollector{fn: fn, traces: map[trace.TraceID][]sdktrace.ReadOnlySpan{}}
}

type traceCollector struct {
	fn     func(Trace)
	mu     sync.Mutex
	traces map[trace.TraceID][]sdktrace.ReadOnlySpan
}

func (c *traceCollector) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

func (c *traceCollector) OnEnd(s sdktrace.ReadOnlySpan) {
	c.mu.Lock()
	id := s.SpanContext().TraceID()
	c.traces[id] = append(c.traces[id], s)
	var done []sdktrace.ReadOnlySpan
	if !s.Parent().IsValid() || s.Parent().IsRemote() {
		done = c.traces[id]
		delete(c.traces, id)
	}
	c.mu.Unlock()
	if done != nil {
		c.fn(Trace{Spans: done, Finished: true})
	}
}

func (c *traceCollector) Shutdown(context.Context) error {
	c.mu.Lock()
	left := c.traces
	c.traces = map[trace.TraceID][]sdktrace.ReadOnlySpan{}
	c.mu.Unlock()
	for _, spans := range left {
		c.fn(Trace{Spans: spans})
	}
	return nil
}

func (c *traceCollector) ForceFlush(context.Context) error { return nil }

// OnTraceEnd hands each trace to fn when it ends, as the processor of the
// same name does, for a caller that needs the provider first (its meter).
func (p *Provider) OnTraceEnd(fn func(Trace)) {
	p.tp.RegisterSpanProcessor(OnTraceEnd(func(t Trace) {
		fn(t)
		p.metricsAtTraceEnd() // what fn recorded goes out now, if the run is ending
	}))
}
