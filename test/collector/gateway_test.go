package collector

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// The gateway as a team exposes it, TLS and a bearer token switched on by
// its settings: cursor-otel with the team's CA and a token from the token
// file gets its session through, over gRPC and HTTP; a wrong token is
// refused, and so is every token when auth is on and no token file given.
func TestGatewayTLSAndToken(t *testing.T) {
	ca := otlptest.NewCA(t)
	cert := ca.Issue(t, "gateway", false)
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("old-token  # rotated out next week\nteam-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	store := otlptest.StartGRPC(t)
	grpcPort := freePort(t)
	newSampler(t, "sampler", grpcPort, store, map[string]string{"DECISION_WAIT_AFTER_ROOT": "1s"}).start(t)
	secure := map[string]string{"OTLP_TLS": "true", "OTLP_TLS_CERT_FILE": cert.CertFile, "OTLP_TLS_KEY_FILE": cert.KeyFile,
		"OTLP_AUTH": "true", "SAMPLERS": "[" + addr(grpcPort) + "]"}

	for _, tt := range []struct {
		name      string
		tokenFile string
		protocol  string
		token     string
		through   bool
	}{
		{"token over gRPC", tokens, "grpc", "team-token", true},
		{"token over HTTP", tokens, "http/protobuf", "team-token", true},
		{"wrong token", tokens, "grpc", "guessed", false},
		{"no token file", "", "grpc", "team-token", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := maps.Clone(secure)
			env["OTLP_GRPC_ENDPOINT"], env["OTLP_HTTP_ENDPOINT"] = addr(freePort(t)), addr(freePort(t))
			if tt.tokenFile != "" {
				env["OTLP_TOKEN_FILE"] = tt.tokenFile
			}
			gw := newCollector(t, "gateway", "gateway.yaml", env)
			gw.start(t)
			endpoint := "https://" + env["OTLP_GRPC_ENDPOINT"]
			if tt.protocol != "grpc" {
				endpoint = "https://" + env["OTLP_HTTP_ENDPOINT"]
			}
			s := replayRun("examples/failed-run.ndjson", true, false).start(t, endpoint, tt.protocol,
				[]string{"OTEL_EXPORTER_OTLP_CERTIFICATE=" + ca.File, "OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20" + tt.token,
					"CURSOR_OTEL_FLUSH_TIMEOUT=10s"})
			warned := strings.Contains(string(s.stderr), "cursor-otel: export to")
			if !tt.through {
				if !strings.Contains(string(s.stderr), "Unauthenticated") {
					t.Errorf("the gateway did not refuse the session as unauthenticated; stderr:\n%s", s.stderr)
				}
				return
			}
			if warned {
				t.Fatalf("refused:\n%s", s.stderr)
			}
			for end := time.Now().Add(time.Minute); !sessionIn(store, s); time.Sleep(200 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatalf("the failed session did not reach the trace store whole")
				}
			}
		})
	}
}

// sessionIn says whether the store holds exactly s's spans.
func sessionIn(store *otlptest.Receiver, s *session) bool {
	tr := &tier{stores: []*otlptest.Receiver{store}}
	return tr.delivered().whole(s)
}
