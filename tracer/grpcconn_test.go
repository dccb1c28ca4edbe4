package tracer

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// A connection is dialed as the exporter would dial it from the same
// variables: the signal's own variable over the shared one, INSECURE over
// the scheme, a certificate meaning TLS with it.
func TestDialingReadsTheVariablesAsTheExporter(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want dialing
		ok   bool
	}{
		{"the default endpoint, plaintext", nil, dialing{target: "localhost:4317", insecure: true}, true},
		{"an http endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317"},
			dialing{target: "collector:4317", insecure: true}, true},
		{"an https endpoint with a path", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector:4317/otlp/"},
			dialing{target: "collector:4317/otlp"}, true},
		{"the signal's endpoint wins", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4317", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://b:4317"},
			dialing{target: "b:4317"}, true},
		{"INSECURE over the scheme", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4317", "OTEL_EXPORTER_OTLP_INSECURE": "TRUE"},
			dialing{target: "c:4317", insecure: true}, true},
		{"the signal's INSECURE wins", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_INSECURE": "true",
			"OTEL_EXPORTER_OTLP_TRACES_INSECURE": "false"}, dialing{target: "c:4317"}, true},
		{"INSECURE does not touch the default endpoint", map[string]string{"OTEL_EXPORTER_OTLP_INSECURE": "false"},
			dialing{target: "localhost:4317", insecure: true}, true},
		{"certificates and compression", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4317",
			"OTEL_EXPORTER_OTLP_CERTIFICATE": "ca.pem", "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": "traces-ca.pem",
			"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": "c.pem", "OTEL_EXPORTER_OTLP_CLIENT_KEY": "k.pem", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"},
			dialing{target: "c:4317", ca: "traces-ca.pem", clientCert: "c.pem", clientKey: "k.pem", gzip: true}, true},
		{"a client certificate without its key is none", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE": "c.pem"},
			dialing{target: "localhost:4317", insecure: true}, true},
		{"a unix socket is left to the exporter", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "unix:///run/otel.sock"}, dialing{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := readSettings(env(tt.env)) // the files named are not there: only the names matter here
			got, ok := dialingFor(env(tt.env), s.traces, "TRACES")
			if ok != tt.ok || got != tt.want {
				t.Errorf("dialing %+v (%v), want %+v (%v)", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// The connection to the collector is made when the provider is, before
// any export (a wrapped run's, while the agent runs), and traces and
// metrics going to one collector share it.
func TestOneConnectionMadeAtOnce(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			defer c.Close()
		}
	}()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+lis.Addr().String())
	p, err := New(context.Background(), Config{FlushTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	deadline := time.Now().Add(5 * time.Second)
	for accepted.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond) // polling the listener's count: gRPC connects on its own goroutines
	}
	time.Sleep(100 * time.Millisecond) // a second connection, if any, would come meanwhile
	if n := accepted.Load(); n != 1 {
		t.Errorf("%d connections made before any export, want 1 for traces and metrics", n)
	}
}
