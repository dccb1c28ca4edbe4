package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// OTLP as deployments run it: TLS with a private CA, mutual TLS, both
// protocols; an https endpoint never falls back to plaintext.
func TestExportTLS(t *testing.T) {
	t.Parallel() // its own receivers and certificates: it shares nothing with another test
	ca := otlptest.NewCA(t)
	server := ca.Issue(t, "collector", false)
	client := ca.Issue(t, "cursor-otel", true)
	plain := otlptest.StartGRPC(t)
	for _, tt := range []struct {
		name     string
		recv     *otlptest.Receiver
		endpoint string // when not the receiver's own
		env      []string
		exported bool
		warning  string
	}{
		{name: "gRPC, TLS, private CA", recv: otlptest.StartGRPCTLS(t, otlptest.ServerTLS(server, nil)),
			env: []string{"OTEL_EXPORTER_OTLP_CERTIFICATE=" + ca.File}, exported: true},
		{name: "HTTP/protobuf, TLS, private CA", recv: otlptest.StartHTTPTLS(t, otlptest.ServerTLS(server, nil)),
			env: []string{"OTEL_EXPORTER_OTLP_CERTIFICATE=" + ca.File, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"}, exported: true},
		{name: "gRPC, mutual TLS", recv: otlptest.StartGRPCTLS(t, otlptest.ServerTLS(server, ca.Pool)),
			env: []string{"OTEL_EXPORTER_OTLP_CERTIFICATE=" + ca.File, "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE=" + client.CertFile,
				"OTEL_EXPORTER_OTLP_CLIENT_KEY=" + client.KeyFile}, exported: true},
		{name: "gRPC, mutual TLS, no client certificate", recv: otlptest.StartGRPCTLS(t, otlptest.ServerTLS(server, ca.Pool)),
			env: []string{"OTEL_EXPORTER_OTLP_CERTIFICATE=" + ca.File}, warning: "failed"},
		{name: "gRPC, TLS, CA not trusted", recv: otlptest.StartGRPCTLS(t, otlptest.ServerTLS(server, nil)),
			warning: "failed"},
		{name: "https to a plaintext collector does not fall back", recv: plain,
			endpoint: strings.Replace(plain.Endpoint, "http://", "https://", 1), warning: "failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			endpoint := tt.recv.Endpoint
			if tt.endpoint != "" {
				endpoint = tt.endpoint
			}
			before := tt.recv.SpanCount()
			r := runBinary(t, append([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint}, tt.env...), nil, "replay", "--quiet", "examples/failed-run.ndjson")
			got := tt.recv.SpanCount() - before
			if tt.exported && (got != 5 || r.exit != 0 || r.stderr != "") {
				t.Errorf("received %d spans, exit %d, stderr %q; want 5, 0, nothing", got, r.exit, r.stderr)
			}
			if !tt.exported && (got != 0 || r.exit != 1 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tt.warning)) {
				t.Errorf("received %d spans, exit %d, stderr %q; want none, exit 1 and one line", got, r.exit, r.stderr)
			}
		})
	}
}

// OTEL_EXPORTER_OTLP_HEADERS carries auth (its values URL-decoded, as the
// specification says); a refusal is one clear line, exit 1 in replay, the
// agent's status in wrap mode.
func TestExportHeaders(t *testing.T) {
	for _, protocol := range []string{"grpc", "http/protobuf"} {
		t.Run(protocol, func(t *testing.T) {
			recv := otlptest.StartGRPC(t)
			if protocol != "grpc" {
				recv = otlptest.StartHTTP(t)
			}
			recv.RequireHeader("authorization", "Bearer s3cret token")
			env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL=" + protocol}

			ok := runBinary(t, append(env, "OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20s3cret%20token,x-team=ci"), nil,
				"replay", "--quiet", "examples/failed-run.ndjson")
			if ok.exit != 0 || ok.stderr != "" || recv.SpanCount() != 5 {
				t.Errorf("accepted: exit %d, stderr %q, %d spans; want 0, nothing, 5", ok.exit, ok.stderr, recv.SpanCount())
			}
			if h := recv.Headers(); len(h) == 0 || h[0]["x-team"] != "ci" {
				t.Errorf("headers %v, want x-team=ci sent", h)
			}

			refused := runBinary(t, append(env, "OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20wrong"), nil,
				"replay", "--quiet", "examples/failed-run.ndjson")
			if refused.exit != 1 || strings.Count(refused.stderr, "\n") != 1 || !strings.Contains(refused.stderr, "5 of 5 spans not exported") {
				t.Errorf("refused replay: exit %d, stderr %q; want 1 and one line", refused.exit, refused.stderr)
			}
			if protocol == "grpc" && !strings.Contains(refused.stderr, "Unauthenticated") {
				t.Errorf("stderr %q does not say Unauthenticated", refused.stderr)
			}

			wrapped := runWrapped(t, wrapSpec{args: streamArgs(), endpoint: recv.Endpoint,
				env: []string{"OTEL_EXPORTER_OTLP_PROTOCOL=" + protocol, "OTEL_EXPORTER_OTLP_HEADERS=authorization=wrong", "FAKEAGENT_STREAM=examples/failed-run.ndjson"}})
			if wrapped.exit != 0 || strings.Count(wrapped.stderr, "\n") != 1 {
				t.Errorf("refused wrap: exit %d, stderr %q; want the agent's 0 and one line", wrapped.exit, wrapped.stderr)
			}
		})
	}
}

func TestExportCompression(t *testing.T) {
	for _, protocol := range []string{"grpc", "http/protobuf"} {
		for _, compression := range []string{"gzip", "none"} {
			t.Run(protocol+" "+compression, func(t *testing.T) {
				recv := otlptest.StartGRPC(t)
				if protocol != "grpc" {
					recv = otlptest.StartHTTP(t)
				}
				r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL=" + protocol,
					"OTEL_EXPORTER_OTLP_COMPRESSION=" + compression}, nil, "replay", "--quiet", "examples/fix-failing-test.ndjson")
				if r.exit != 0 || recv.SpanCount() != 11 {
					t.Fatalf("exit %d, %d spans: %s", r.exit, recv.SpanCount(), r.stderr)
				}
				if got := recv.Compressed() > 0; got != (compression == "gzip") {
					t.Errorf("%d compressed requests with compression %s", recv.Compressed(), compression)
				}
			})
		}
	}
}

// A setting the OpenTelemetry libraries would drop without a word (a
// malformed header, a bare host:port) is said, in one line of
// cursor-otel's own that says what to write: replay stops with status 2
// and exports nothing rather than export without it.
func TestMalformedOTELSettingsAreSaid(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	for _, tt := range []struct {
		env  []string
		want string
	}{
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "OTEL_EXPORTER_OTLP_HEADERS=no-equals-sign,also bad=%zz"},
			`OTEL_EXPORTER_OTLP_HEADERS: "no-equals-sign" is not key=value; write key=value pairs`},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + strings.TrimPrefix(recv.Endpoint, "http://")},
			"is not a URL: write http://"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT=abc"},
			`OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT="abc": write a whole number`},
	} {
		r := runBinary(t, tt.env, nil, "replay", "--quiet", "examples/failed-run.ndjson")
		if r.exit != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tt.want) || recv.SpanCount() != 0 {
			t.Errorf("%v: exit %d, stderr %q, %d spans; want 2, one line saying %q, none", tt.env, r.exit, r.stderr, recv.SpanCount(), tt.want)
		}
	}
}

// Captured content is cut to --max-attribute-length, and batches are sized
// so that no export nears the 4 MiB a gRPC receiver accepts: 400 tool calls
// with 200 KB results each arrive whole.
func TestCapturedContentFitsTheReceiver(t *testing.T) {
	t.Parallel() // its own stream and receiver: it shares nothing with another test
	var b strings.Builder
	b.WriteString(`{"type":"system","subtype":"init","session_id":"big","model":"Auto"}` + "\n")
	big := strings.Repeat("log line with détails 0123456789\n", 6000) // ~200 KB
	for i := range 400 {
		ts := 1790000000000 + int64(i)*100
		fmt.Fprintf(&b, `{"type":"tool_call","subtype":"started","call_id":"c%d","tool_call":{"shellToolCall":{"args":{"command":"cat build-%d.log"}}},"model_call_id":"m-0","timestamp_ms":%d}`+"\n", i, i, ts)
		fmt.Fprintf(&b, `{"type":"tool_call","subtype":"completed","call_id":"c%d","tool_call":{"shellToolCall":{"args":{"command":"cat build-%d.log"},"result":{"success":{"exitCode":0,"stdout":%q}}}},"model_call_id":"m-0","timestamp_ms":%d}`+"\n", i, i, big, ts+50)
	}
	b.WriteString(`{"type":"result","subtype":"success","result":"ok","session_id":"big"}` + "\n")
	path := filepath.Join(t.TempDir(), "big.ndjson")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		flags []string
		limit int
	}{
		{[]string{"--capture-content"}, 16 << 10},
		{[]string{"--capture-content", "--max-attribute-length", "100"}, 100},
	} {
		t.Run(strings.Join(tt.flags, " "), func(t *testing.T) {
			recv := otlptest.StartGRPC(t)
			r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint}, nil, append(append([]string{}, tt.flags...), "replay", "--quiet", path)...)
			if r.exit != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.exit, r.stderr)
			}
			if got := recv.SpanCount(); got != 400+2 {
				t.Errorf("received %d spans, want 402", got)
			}
			longest := 0
			for _, s := range spansOf(recv) {
				if v := value(s, "gen_ai.tool.call.result"); len(v) > longest {
					longest = len(v)
				}
			}
			if longest < tt.limit || longest > tt.limit+40 {
				t.Errorf("the longest captured result is %d bytes, want the limit %d and a truncation note", longest, tt.limit)
			}
		})
	}
}

// 13. Messages that tell the truth: one line, accurate, in words a user
// acts on, whatever the way the export failed.
func TestExportMessagesTellTheTruth(t *testing.T) {
	t.Parallel() // waits on the delivery's timers, not the CPU
	ca := otlptest.NewCA(t)
	server := ca.Issue(t, "collector", false)
	grpcPlain, httpPlain := otlptest.StartGRPC(t), otlptest.StartHTTP(t)
	slow := otlptest.StartGRPC(t)
	slow.SlowDown(3 * time.Second)
	for _, tt := range []struct {
		name string
		env  []string
		says string
	}{
		{"a TLS collector whose CA is not trusted",
			[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + otlptest.StartGRPCTLS(t, otlptest.ServerTLS(server, nil)).Endpoint},
			"the collector's TLS certificate is signed by an unknown authority; set OTEL_EXPORTER_OTLP_CERTIFICATE to its CA's PEM file; 5 of 5 spans not exported"},
		{"http/protobuf to a gRPC port",
			[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + grpcPlain.Endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"},
			"set OTEL_EXPORTER_OTLP_PROTOCOL=grpc, or use its HTTP port (4318)"},
		{"gRPC to an HTTP port",
			[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + httpPlain.Endpoint},
			"the collector answered in HTTP/1, not gRPC: set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf, or use its gRPC port (4317)"},
		{"https to a plaintext collector",
			[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + strings.Replace(grpcPlain.Endpoint, "http://", "https://", 1)},
			"the collector does not speak TLS: use http:// for plaintext"},
		{"a collector that answers after the flush timeout",
			[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + slow.Endpoint, "CURSOR_OTEL_FLUSH_TIMEOUT=1s"},
			"no answer within the 1s flush timeout for 5 of 5 spans (they may have arrived)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := runBinary(t, tt.env, nil, "replay", "--quiet", "examples/failed-run.ndjson")
			if r.exit != 1 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tt.says) {
				t.Errorf("exit %d, stderr %q; want 1 and one line saying %q", r.exit, r.stderr, tt.says)
			}
		})
	}
	// The collector that answered late did get the spans.
	waitFor(t, "the slow collector to store the spans", func() bool { return slow.SpanCount() == 5 })

	// With --quiet, a malformed setting in wrap mode costs not even a
	// library's log line; without, one line of cursor-otel's own.
	for _, quiet := range []bool{true, false} {
		env := []string{"FAKEAGENT_STREAM=examples/failed-run.ndjson", "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT=abc"}
		if quiet {
			env = append(env, "CURSOR_OTEL_QUIET=true")
		}
		w := runWrapped(t, wrapSpec{args: streamArgs(), env: env})
		want := ""
		if !quiet {
			want = "cursor-otel: OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT=\"abc\": write a whole number; running cursor-agent untraced\n"
		}
		if w.stderr != want || w.exit != 0 {
			t.Errorf("quiet %v: stderr %q, exit %d; want %q, 0", quiet, w.stderr, w.exit, want)
		}
	}
}
