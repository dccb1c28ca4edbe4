package tracer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cursor-otel/cursor-otel/internal/spool"
)

// Delivery sends kept spans through the OTLP exporter the settings name,
// one export at a time, each bounded by the exporter's own timeout
// (OTEL_EXPORTER_OTLP_TIMEOUT, 10s by default).
type Delivery struct {
	exp      sdktrace.SpanExporter
	conns    conns
	to       spool.Destination
	Endpoint string
	// Shown is where it delivers, as a person is shown it: the endpoint
	// as the exporter resolves it, and the protocol.
	Shown string
}

// ErrNoOTLP says the settings export no spans over OTLP, so there is
// nowhere to deliver kept ones.
var ErrNoOTLP = errors.New("no OTLP exporter set")

// NewDelivery makes the exporter kept spans go through.
func NewDelivery(ctx context.Context, cfg Config) (*Delivery, error) {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	s, problems := readSettings(cfg.Getenv)
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	if !slices.Contains(s.traces.exporters, "otlp") {
		return nil, fmt.Errorf("%w (OTEL_TRACES_EXPORTER=%s)", ErrNoOTLP, cmp.Or(cfg.Getenv("OTEL_TRACES_EXPORTER"), "none"))
	}
	p := &Provider{settings: s, conns: conns{}}
	exp, err := p.otlpExporter(ctx, 2*time.Second)
	if err != nil {
		return nil, err
	}
	to := s.traces.destination(cfg.Getenv)
	return &Delivery{exp: exp, conns: p.conns, to: to, Endpoint: s.traces.endpoint, Shown: to.Shown()}, nil
}

// Export is the delivery as the spool takes it.
func (d *Delivery) Export() spool.Export {
	return spool.Export{To: d.to, Send: d.exp.ExportSpans, Permanent: Malformed}
}

// Shutdown closes the exporter's connection.
func (d *Delivery) Shutdown(ctx context.Context) error {
	return errors.Join(d.exp.Shutdown(ctx), d.conns.close())
}

// Malformed says the collector refused an export as malformed data
// (gRPC InvalidArgument, HTTP 400): sending it again would be refused
// again. A refusal for anything else (credentials, load, a collector on
// its way down) may pass later.
func Malformed(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if st, ok := status.FromError(e); ok && st.Code() == codes.InvalidArgument {
			return true
		}
	}
	return err != nil && strings.Contains(err.Error(), ": 400 Bad Request (")
}
