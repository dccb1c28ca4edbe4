package tracer

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"

	"github.com/cursor-otel/cursor-otel/internal/spool"
)

// A run cannot wait for the collector past its flush timeout, and what it
// sent and could not wait for is in doubt: sent again, a collector that
// answered late has it twice. So when the run has ended and its collector
// is not known to answer in time (the spool notes a prompt answer, by
// destination), what it would export from then on is handed over,
// through the spool, to the background delivery: a process that outlives
// the run, sends each part once and waits for its answer. The run waits
// for it within its flush timeout, and says what did not go in that time.
// A collector that is down (no connection made) is not handed anything:
// the run finds that out itself, at once.

// handOverAt decides, as the run ends, whether what is exported from now
// on is handed over. It waits a little for a connection still being made.
func (p *Provider) handOverAt(deadline time.Time) {
	if p.spool == nil || p.deliverer == nil || p.guard == nil {
		return
	}
	prompt := false
	if l := p.look.Load(); l != nil {
		prompt = l.AnsweredPromptly
	} else {
		prompt = p.spool.AnsweredPromptly(p.destination())
	}
	if prompt || !connected(p.traceConn, time.Until(deadline)/4) {
		return
	}
	p.handMu.Lock()
	p.handing = true
	p.handMu.Unlock()
}

// HandOverEachTrace has a long-lived process (an editor's ACP session)
// hand what it exports over to the background delivery as it goes, not
// only once it ends, when its collector is not known to answer in time:
// a turn's export still unanswered when the session ends would otherwise
// be in doubt, and sent again by a later delivery.
func (p *Provider) HandOverEachTrace() {
	if p.spool == nil || p.deliverer == nil || p.guard == nil {
		return
	}
	if p.spool.AnsweredPromptly(p.destination()) {
		return
	}
	p.handMu.Lock()
	p.handing, p.eachTrace = true, true
	p.handMu.Unlock()
	p.guard.handInRun.Store(true)
}

// connected says the collector took the connection: for OTLP/gRPC, the
// connection cursor-otel dialed is ready (waiting at most wait while it
// is being made); over HTTP, where no connection is made ahead, it is
// taken to be.
func connected(conn *grpc.ClientConn, wait time.Duration) bool {
	if conn == nil {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for {
		switch s := conn.GetState(); s {
		case connectivity.Ready:
			return true
		case connectivity.TransientFailure, connectivity.Shutdown:
			return false
		default:
			if !conn.WaitForStateChange(ctx, s) {
				return false
			}
		}
	}
}

// handOver writes spans to the spool for the background delivery, when
// the run hands over, starting it the first time; it returns the spans
// to send here (all of them when it does not hand over; those the spool
// cannot take).
func (p *Provider) handOver(spans []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	p.handMu.Lock()
	defer p.handMu.Unlock()
	if !p.handing {
		return spans
	}
	h, k, err := p.spool.HandOver(p.destination(), spans)
	if err != nil && len(h.Parts) == 0 {
		return spans
	}
	p.keptMu.Lock()
	p.kept.Dropped += k.Dropped
	if err != nil && p.keepErr == nil {
		p.keepErr = err
	}
	p.keptMu.Unlock()
	p.handed = append(p.handed, h)
	if !p.started || p.eachTrace || p.flush.moves {
		// Each time, for a long-lived process (a delivery ends within a
		// minute) and for a run that waits while the delivery's parts are
		// answered (a delivery lists what to send as it starts): one
		// alive, told, looks again before it ends.
		p.started = true
		p.deliverer()
	}
	return h.Rest
}

// handedResult is what became of the spans handed over, by the deadline.
type handedResult struct {
	delivered int                // spans the delivery sent and had answered
	left      []spool.HandedPart // still in the spool
	failure   string             // why the delivery failed, if it did
}

// awaitHanded waits, polling, until the delivery has sent what was
// handed over, has failed (it notes why), or the flush's deadline: each
// part the delivery sends is an answer from the collector, which moves a
// deadline that counts from the last one. (Whether the delivery is alive
// is not asked of its lock: taking it even for a look could make one
// starting now think another is at work, and end.)
func (p *Provider) awaitHanded() (r handedResult) {
	p.handMu.Lock()
	handed := p.handed
	p.handing = false // nothing more is handed over
	p.handMu.Unlock()
	if len(handed) == 0 {
		return r
	}
	to := p.destination()
	for delivered := 0; ; delivered = r.delivered {
		r = handedResult{}
		for _, h := range handed {
			left := p.spool.Left(h)
			r.left = append(r.left, left...)
			for _, part := range h.Parts {
				r.delivered += part.Spans
			}
			for _, part := range left {
				r.delivered -= part.Spans
			}
		}
		if r.delivered > delivered {
			p.flush.answered(time.Now())
			p.handedDelivered.Store(int64(r.delivered))
		}
		if len(r.left) == 0 {
			return r
		}
		if r.failure = p.spool.Failure(to, handed[0].At); r.failure != "" || !time.Now().Before(p.flush.at()) {
			return r // it stops at a failure: the rest waits for a later one
		}
		time.Sleep(10 * time.Millisecond) // polling the spool: the delivery is another process
	}
}

// account adds what became of the spans handed over to the report: those
// delivered are exported; those left are kept, and said handed over (or
// not exported, when the delivery failed).
func (p *Provider) account(r *ExportReport, h handedResult) {
	r.Exported += h.delivered
	if len(h.left) == 0 {
		return
	}
	p.keptMu.Lock()
	defer p.keptMu.Unlock()
	sessions := map[trace.TraceID]bool{}
	spans := 0
	for _, part := range h.left {
		spans += part.Spans
		if !sessions[part.Trace] {
			sessions[part.Trace] = true
			p.kept.Sessions++
		}
		if p.kept.Traces == nil {
			p.kept.Traces = map[trace.TraceID]spool.Fate{}
		}
		p.kept.Traces[part.Trace] = spool.FateKept
	}
	p.kept.Spans += spans
	if h.failure != "" {
		if r.Err == nil {
			r.Err = errors.New(h.failure)
		}
		return
	}
	r.Handed = spans
}

// ExportTimeout is how long the traces' OTLP exporter waits for an
// answer (OTEL_EXPORTER_OTLP_TRACES_TIMEOUT, else OTEL_EXPORTER_OTLP_TIMEOUT,
// else 10 s): what a delivery, which has no user waiting on its exit,
// gives a collector to answer before it calls the export in doubt.
func ExportTimeout(getenv func(string) string) time.Duration {
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"} {
		if ms, err := strconv.Atoi(strings.TrimSpace(getenv(name))); err == nil && ms >= 0 {
			return time.Duration(ms) * time.Millisecond
		}
	}
	return 10 * time.Second
}
