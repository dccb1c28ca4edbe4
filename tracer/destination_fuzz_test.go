package tracer

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// The variables a spelling sets; the rest are unset while it is read.
var spellingVars = []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_INSECURE"}

// request is what a collector tells destinations by: where the request
// goes (scheme, host in lower case, the port dialed, the path) and the
// headers the user's settings put in it, by lower-case name.
type request struct {
	url     string
	headers string
}

// capture answers every export at once, keeping its request.
type capture struct{ got *http.Request }

func (c *capture) RoundTrip(r *http.Request) (*http.Response, error) {
	c.got = r
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("")), Header: http.Header{}, Request: r}, nil
}

// exporterRequest is the request the exporter makes with env, as it
// reads the process's variables: over HTTP the exporter's own request,
// caught before it leaves; over gRPC the target cursor-otel dials for it
// (dialingFor) and the headers the HTTP exporter reads from the same
// variables (both exporters read them with one generated parser), less
// those gRPC reserves. ok is false for settings cursor-otel refuses, or
// the exporter cannot send with.
func exporterRequest(t *testing.T, env map[string]string) (req request, to request, ok bool) {
	for _, k := range spellingVars {
		if v, set := env[k]; set {
			if os.Setenv(k, v) != nil {
				return req, to, false
			}
		} else {
			os.Unsetenv(k)
		}
	}
	s, problems := readSettings(os.Getenv)
	if len(problems) > 0 {
		return req, to, false
	}
	c := &capture{}
	opts := append(httpOptions(httpSignal(s.traces)), otlptracehttp.WithHTTPClient(&http.Client{Transport: c}),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	exp, err := otlptracehttp.New(context.Background(), opts...)
	if err != nil {
		return req, to, false
	}
	defer exp.Shutdown(context.Background())
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled})
	if err := exp.ExportSpans(context.Background(), []sdktrace.ReadOnlySpan{tracetest.SpanStub{Name: "s", SpanContext: sc}.Snapshot()}); err != nil || c.got == nil {
		return req, to, false
	}
	headers := map[string][]string{}
	for name, values := range c.got.Header {
		name = strings.ToLower(name)
		if name == "content-type" || name == "content-encoding" || name == "content-length" ||
			s.traces.protocol == "grpc" && slices.Contains(setByProtocol["grpc"], name) {
			continue
		}
		headers[name] = values
	}
	req.headers = fmt.Sprint(slices.Sorted(maps.Keys(headers)), headers)
	if s.traces.protocol == "grpc" {
		d, ok := dialingFor(os.Getenv, s.traces, "TRACES")
		if !ok {
			return req, to, false
		}
		scheme := "https"
		if d.insecure && d.ca == "" && d.clientCert == "" {
			scheme = "http"
		}
		hostport, p, _ := strings.Cut(d.target, "/")
		req.url = normalURL(scheme, hostport, "443") + strings.TrimSuffix("/"+p, "/")
	} else {
		u := c.got.URL
		req.url = normalURL(u.Scheme, u.Host, map[string]string{"http": "80", "https": "443"}[u.Scheme]) + u.Path
	}
	dest := s.traces.destination(os.Getenv)
	to.url = dest.Shown()
	var hs []string
	for _, k := range slices.Sorted(maps.Keys(dest.Headers)) {
		hs = append(hs, k+"="+dest.Headers[k])
	}
	to.headers = strings.Join(hs, "\x01")
	return req, to, true
}

// httpSignal is traces as the HTTP exporter is set up for them (the
// default endpoint is the HTTP one's when the protocol is).
func httpSignal(s signal) signal {
	if !s.userEndpoint && s.protocol == "grpc" {
		s.endpoint = defaultHTTPEndpoint // the headers are what is compared
	}
	return s
}

// normalURL is scheme://host:port with the host in lower case and the
// port the connection goes to when none is written.
func normalURL(scheme, hostport, defaultPort string) string {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), defaultPort
	}
	if port == "" {
		port = defaultPort
	}
	return strings.ToLower(scheme) + "://" + net.JoinHostPort(strings.ToLower(host), port)
}

// respell writes settings another way, as seed says: what a user may
// write for the same collector (case, a trailing slash, the default port,
// the signal's variable, headers reordered, spaced, their names in
// another case, their values percent-encoded), and now and then what
// changes the request (another port, another value).
func respell(env map[string]string, seed uint64) map[string]string {
	out := maps.Clone(env)
	bit := func(n int) bool { return seed>>n&1 == 1 }
	http := out["OTEL_EXPORTER_OTLP_PROTOCOL"] == "http/protobuf"
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		v, ok := out[k]
		if !ok {
			continue
		}
		u, err := url.Parse(v)
		if err != nil {
			continue
		}
		if bit(0) {
			u.Scheme = strings.ToUpper(u.Scheme)
		}
		if bit(1) {
			u.Host = strings.ToUpper(u.Host)
		}
		if bit(2) && u.Port() == "" && u.Host != "" && !strings.HasSuffix(u.Host, "]") {
			u.Host += map[bool]string{true: ":80", false: ":443"}[strings.EqualFold(u.Scheme, "http") && http]
		}
		if bit(3) && (!http || k == "OTEL_EXPORTER_OTLP_ENDPOINT") {
			u.Path += "/"
		}
		if bit(4) && k == "OTEL_EXPORTER_OTLP_ENDPOINT" {
			delete(out, k)
			if http {
				u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
			}
			k = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
		}
		if bit(5) && bit(6) { // another port: another collector
			u.Host = u.Hostname() + ":1"
		}
		out[k] = u.String()
	}
	if h, ok := out["OTEL_EXPORTER_OTLP_HEADERS"]; ok {
		pairs := strings.Split(h, ",")
		if bit(7) {
			slices.Reverse(pairs)
		}
		for i, p := range pairs {
			name, value, _ := strings.Cut(p, "=")
			if bit(8) {
				name = " " + strings.ToUpper(name) + " "
			}
			if bit(9) && value != "" {
				value = fmt.Sprintf("%%%02X", value[0]) + value[1:]
			}
			if bit(10) && bit(11) && i == 0 { // another value: another tenant
				value += "x"
			}
			pairs[i] = name + "=" + value
		}
		out["OTEL_EXPORTER_OTLP_HEADERS"] = strings.Join(pairs, ",")
		if bit(12) {
			out["OTEL_EXPORTER_OTLP_TRACES_HEADERS"], out["OTEL_EXPORTER_OTLP_HEADERS"] = out["OTEL_EXPORTER_OTLP_HEADERS"], "ignored=1"
		}
	}
	return out
}

// Any two spellings the exporter resolves to the same request get the
// same destination, and two that it resolves to different requests
// (another host, port, path, header value) get different ones: a kept
// session reaches its collector however it is written, and never
// another tenant.
func FuzzDestinationSpellings(f *testing.F) {
	otel.SetLogger(logr.Discard()) // the exporters log what they skip
	f.Add("http://localhost:4317", "authorization=Bearer%20a,x-tenant=team", false, false, uint64(0x1fff))
	f.Add("http://127.0.0.1:4318", "a=1,b=2", true, false, uint64(0x0f9b))
	f.Add("https://Collector.Example/otlp/", "Api-Key=k%2Cv", true, true, uint64(0x13c5))
	f.Add("http://[::1]:4317/", "", false, true, uint64(0x0042))
	f.Add("HTTP://LOCALHOST", "a= 1 ,b=%202", true, false, uint64(0x1a7e))
	f.Fuzz(func(t *testing.T, endpoint, headers string, http, perSignal bool, seed uint64) {
		env := map[string]string{}
		if endpoint != "" {
			env[map[bool]string{true: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", false: "OTEL_EXPORTER_OTLP_ENDPOINT"}[perSignal]] = endpoint
		}
		if headers != "" {
			env["OTEL_EXPORTER_OTLP_HEADERS"] = headers
		}
		if http {
			env["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf"
		}
		// Names differing in case alone make the HTTP exporter's request
		// depend on map order: no request to compare.
		seen := map[string]bool{}
		for _, p := range strings.Split(headers, ",") {
			name, _, _ := strings.Cut(p, "=")
			lower := strings.ToLower(strings.TrimSpace(name))
			if seen[lower] && strings.TrimSpace(name) != lower {
				return
			}
			seen[lower] = true
		}
		other := respell(env, seed^binary.LittleEndian.Uint64([]byte("spelling")))
		reqA, toA, okA := exporterRequest(t, env)
		reqB, toB, okB := exporterRequest(t, other)
		for _, k := range spellingVars {
			os.Unsetenv(k)
		}
		if !okA || !okB {
			return
		}
		if (reqA == reqB) != (toA == toB) {
			t.Fatalf("%q and %q:\nrequests %q and %q (same %v),\ndestinations %q and %q (same %v)",
				env, other, reqA, reqB, reqA == reqB, toA, toB, toA == toB)
		}
	})
}
