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
// fn runs on a goroutine of its own, one trace after another, so that what
// it makes of a trace (a session's summary and metrics: 7% of a replay's
// CPU) is off the path that makes the spans. Shutdown waits for it before
// the metrics are exported.
func (p *Provider) OnTraceEnd(fn func(Trace)) {
	q := &traceQueue{traces: make(chan Trace, traceQueueLength)}
	go func() {
		for t := range q.traces {
			fn(t)
			p.metricsAtTraceEnd() // what fn recorded goes out now, if the run is ending
			q.left.Done()
		}
	}()
	p.reports = append(p.reports, q)
	p.tp.RegisterSpanProcessor(OnTraceEnd(q.add))
}

// traceQueueLength is how many ended traces may wait for OnTraceEnd's fn
// before the span that ends the next one waits.
const traceQueueLength = 64

// traceQueue is the traces waiting for an OnTraceEnd fn.
type traceQueue struct {
	traces chan Trace
	left   sync.WaitGroup // traces queued, not yet through fn
	mu     sync.Mutex
	closed bool
}

// add queues t for fn; after the provider's shutdown, nothing is.
func (q *traceQueue) add(t Trace) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.left.Add(1)
	q.traces <- t
}

// waitReports waits until OnTraceEnd's fns have had every trace ended so
// far; closing, it lets their goroutines end (after the provider's
// shutdown: no trace ends after it).
func (p *Provider) waitReports(closing bool) {
	for _, q := range p.reports {
		q.left.Wait()
		if closing {
			q.mu.Lock()
			if !q.closed {
				q.closed = true
				close(q.traces)
			}
			q.mu.Unlock()
		}
	}
}
