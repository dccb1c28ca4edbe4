package spool_test

import (
	"context"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// Spellings are two settings of the OTEL_EXPORTER_OTLP_ variables (a
// blank-separated list of NAME=value, NAME without the prefix), and
// whether the exporter resolves them to the same collector and request.
var spellings = []struct {
	name string
	a, b string
	same bool
}{
	{"unset and the documented default", "", "ENDPOINT=http://localhost:4317", true},
	{"a trailing slash", "ENDPOINT=http://localhost:4317", "ENDPOINT=http://localhost:4317/", true},
	{"scheme and host in capitals", "ENDPOINT=http://localhost:4317", "ENDPOINT=HTTP://LOCALHOST:4317", true},
	{"the default port written", "ENDPOINT=https://collector.example", "ENDPOINT=https://collector.example:443", true},
	{"the shared variable and the signal's own", "ENDPOINT=http://127.0.0.1:4317", "TRACES_ENDPOINT=http://127.0.0.1:4317", true},
	{"a user in the URL, which no exporter sends", "ENDPOINT=http://me:pw@127.0.0.1:4317", "ENDPOINT=http://127.0.0.1:4317", true},
	{"http: the shared variable, and the signal's with /v1/traces", "PROTOCOL=http/protobuf ENDPOINT=http://127.0.0.1:4318", "PROTOCOL=http/protobuf TRACES_ENDPOINT=http://127.0.0.1:4318/v1/traces", true},
	{"http: the shared variable with a trailing slash", "PROTOCOL=http/protobuf ENDPOINT=http://127.0.0.1:4318/", "PROTOCOL=http/protobuf ENDPOINT=http://127.0.0.1:4318", true},
	{"http: unset and the default written", "PROTOCOL=http/protobuf", "PROTOCOL=http/protobuf TRACES_ENDPOINT=http://localhost:4318/v1/traces", true},
	{"http: the default port of http", "PROTOCOL=http/protobuf ENDPOINT=http://collector.example", "PROTOCOL=http/protobuf ENDPOINT=http://collector.example:80/", true},
	{"headers in another order", "HEADERS=a=1,b=2", "HEADERS=b=2,a=1", true},
	{"header names in another case, spaces around", "HEADERS=Authorization=Bearer%20x", "HEADERS=%20authorization%20=%20Bearer%20x", true},
	{"a value percent-encoded or not", "HEADERS=x-tenant=team%2Da", "HEADERS=x-tenant=team-a", true},
	{"the signal's headers over the shared ones", "HEADERS=a=1 TRACES_HEADERS=b=2", "TRACES_HEADERS=b=2", true},

	{"another host name for the same address", "ENDPOINT=http://localhost:4317", "ENDPOINT=http://127.0.0.1:4317", false},
	{"another port", "ENDPOINT=http://127.0.0.1:4317", "ENDPOINT=http://127.0.0.1:4318", false},
	{"TLS and plaintext", "ENDPOINT=http://collector.example:4317", "ENDPOINT=https://collector.example:4317", false},
	{"another protocol", "ENDPOINT=http://127.0.0.1:4317", "PROTOCOL=http/protobuf ENDPOINT=http://127.0.0.1:4317", false},
	{"another tenant's token", "HEADERS=authorization=Bearer%20a", "HEADERS=authorization=Bearer%20b", false},
	{"a header more", "HEADERS=a=1", "HEADERS=a=1,x-tenant=t", false},
	{"http: the signal's URL as written, without /v1/traces", "PROTOCOL=http/protobuf TRACES_ENDPOINT=http://127.0.0.1:4318", "PROTOCOL=http/protobuf ENDPOINT=http://127.0.0.1:4318", false},
	{"http: another path", "PROTOCOL=http/protobuf ENDPOINT=http://127.0.0.1:4318/a", "PROTOCOL=http/protobuf ENDPOINT=http://127.0.0.1:4318/b", false},
}

// settings reads a spelling as the environment.
func settings(spelling string) func(string) string {
	env := map[string]string{}
	for _, kv := range strings.Fields(spelling) {
		k, v, _ := strings.Cut(kv, "=")
		env["OTEL_EXPORTER_OTLP_"+k] = strings.ReplaceAll(v, "%20", " ")
	}
	return func(k string) string { return env[k] }
}

// A session kept under one spelling is delivered under another that
// resolves to the same collector and request, and waits under one that
// does not (another host name, port, protocol, tenant), either way round.
func TestSpellingsOfOneDestination(t *testing.T) {
	for _, c := range spellings {
		t.Run(c.name, func(t *testing.T) {
			for _, order := range [][2]string{{c.a, c.b}, {c.b, c.a}} {
				keptFor, ok1 := tracer.Destination(settings(order[0]))
				deliverTo, ok2 := tracer.Destination(settings(order[1]))
				if !ok1 || !ok2 {
					t.Fatalf("no destination for %q or %q", order[0], order[1])
				}
				d := spool.Open(t.TempDir(), 0)
				if _, err := d.Keep(keptFor, oneSession()); err != nil {
					t.Fatal(err)
				}
				sent := 0
				r, err := d.Deliver(context.Background(), spool.Export{To: deliverTo, Send: func(_ context.Context, s []sdktrace.ReadOnlySpan) error {
					sent += len(s)
					return nil
				}}, false)
				if err != nil {
					t.Fatal(err)
				}
				if delivered := sent == 1 && len(r.Waiting) == 0; delivered != c.same {
					t.Errorf("kept under %q, delivering under %q: %d spans sent, waiting %+v; want delivered %v\n(%s, %s)",
						order[0], order[1], sent, r.Waiting, c.same, keptFor.Shown(), deliverTo.Shown())
				}
			}
		})
	}
}

func oneSession() []sdktrace.ReadOnlySpan {
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled})
	return []sdktrace.ReadOnlySpan{tracetest.SpanStub{Name: "invoke_agent cursor-agent", SpanContext: sc}.Snapshot()}
}
