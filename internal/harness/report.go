package harness

import (
	"context"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/metrics"
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/internal/summary"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// report has each finished session's report written to the files asked
// for and recorded as metrics: computed once, from the session's spans,
// for both. route, if not nil, may send a trace's report elsewhere.
func report(prov *tracer.Provider, files *summary.Files, route func(trace.TraceID) (*summary.Files, bool), where metrics.Where,
	person func(trace.TraceID) settings.Person) error {
	meters, err := metrics.New(prov.Meter(), where)
	if err != nil {
		return err
	}
	prov.OnTraceEnd(func(t tracer.Trace) {
		r, ok := summary.FromTrace(t.Spans)
		if !ok {
			return
		}
		to := files
		if route != nil && len(t.Spans) > 0 {
			if f, ok := route(t.Spans[0].SpanContext().TraceID()); ok {
				to = f
			}
		}
		if to.Wanted() {
			to.Write(r)
		}
		var who settings.Person
		if person != nil && len(t.Spans) > 0 {
			who = person(t.Spans[0].SpanContext().TraceID())
		}
		meters.Record(context.Background(), r, metrics.Person{Hash: who.Hash, Email: who.Email})
	})
	return nil
}

// spooled tells the reports what became of the sessions the collector
// did not take: kept, or dropped, and the older sessions the run
// dropped to keep the spool within its bound.
func spooled(files *summary.Files, r tracer.ExportReport) {
	fates := map[string]summary.Spool{}
	for id, fate := range r.Kept.Traces {
		switch fate {
		case spool.FateKept:
			fates[id.String()] = summary.Spool{Kept: true}
		case spool.FateTooLarge:
			fates[id.String()] = summary.Spool{Dropped: string(fate)}
		}
	}
	files.Spooled(fates, r.Kept.Dropped)
}
