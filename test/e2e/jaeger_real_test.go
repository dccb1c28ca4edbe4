//go:build jaeger

package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

// freePort is a port free on 127.0.0.1 a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	return fmt.Sprint(lis.Addr().(*net.TCPAddr).Port)
}

type jaegerSpan struct {
	OperationName string `json:"operationName"`
	TraceID       string `json:"traceID"`
	Tags          []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
	References []struct {
		RefType string `json:"refType"`
		TraceID string `json:"traceID"`
	} `json:"references"`
}

func (s jaegerSpan) tag(key string) string {
	for _, t := range s.Tags {
		if t.Key == key {
			return fmt.Sprint(t.Value)
		}
	}
	return ""
}

// A real Jaeger (v2, built from its module by .ci/run; JAEGER names the
// binary) takes a replay, a wrapped run and an editor session from
// cursor-otel, and stores on every span what its GenAI view classifies
// and groups by: the operation, the kind, the conversation and the agent;
// the sessions' cache writes under the name its GenAI tab reads.
func TestRealJaeger(t *testing.T) {
	bin := os.Getenv("JAEGER")
	if bin == "" {
		t.Fatal("JAEGER names no Jaeger binary (.ci/run builds one)")
	}
	otlp, query := freePort(t), freePort(t)
	cmd := exec.Command(bin, "--config", "test/e2e/testdata/jaeger.yaml")
	cmd.Env = append(os.Environ(), "JAEGER_OTLP_PORT="+otlp, "JAEGER_QUERY_PORT="+query, "JAEGER_QUERY_GRPC_PORT="+freePort(t))
	proctest.Start(t, cmd, 5*time.Minute)
	api := "http://127.0.0.1:" + query + "/api/traces?service=cursor-agent&limit=100"
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) { // polling Jaeger until it answers
		if r, err := http.Get(api); err == nil {
			r.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Jaeger never answered")
		}
	}
	endpoint := "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:" + otlp
	if r := runBinary(t, []string{endpoint, "OTEL_METRICS_EXPORTER=none"}, nil, "replay", "--quiet", "--now", "examples/parallel-tools.ndjson"); r.exit != 0 {
		t.Fatalf("replay: exit %d %s", r.exit, r.stderr)
	}
	w := runWrapped(t, wrapSpec{args: streamArgs(), endpoint: "http://127.0.0.1:" + otlp,
		env: []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "FAKEAGENT_SPEED=1000000", "FAKEAGENT_REBASE=1", "OTEL_METRICS_EXPORTER=none"}})
	if w.exit != 0 {
		t.Fatalf("wrapped run: exit %d %s", w.exit, w.stderr)
	}
	runHooks(t, []string{endpoint, "CURSOR_OTEL_STATE_DIR=" + t.TempDir(), "OTEL_METRICS_EXPORTER=none"}, linesOf(t, "spanmap/testdata/hooks/cli-2026.10.ndjson"))

	var got struct {
		Data []struct {
			Spans []jaegerSpan `json:"spans"`
		} `json:"data"`
	}
	kinds := map[string]string{"invoke_agent": "client", "chat": "client", "execute_tool": "internal"}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) { // polling Jaeger's store: it batches
		r, err := http.Get(api)
		if err == nil {
			err = json.NewDecoder(r.Body).Decode(&got)
			r.Body.Close()
		}
		n := 0
		for _, tr := range got.Data {
			n += len(tr.Spans)
		}
		// 6 spans of the replay, 11 of the wrapped run, 7 of the editor
		// conversation (2 turns of 3 and 4; its end is on the last).
		if err == nil && n >= 24 || time.Now().After(deadline) {
			break
		}
	}
	if len(got.Data) != 4 {
		t.Fatalf("%d traces in Jaeger, want 4 (a replay, a wrapped run, an editor conversation's 2 turns: its end is no trace)", len(got.Data))
	}
	spans, links := 0, 0
	for _, tr := range got.Data {
		for _, s := range tr.Spans {
			spans++
			op := s.tag("gen_ai.operation.name")
			if want, ok := kinds[op]; !ok || !strings.HasPrefix(s.OperationName, op) || s.tag("span.kind") != want && !(s.OperationName != "invoke_agent cursor-agent" && op == "invoke_agent" && s.tag("span.kind") == "internal") {
				t.Errorf("%s: operation %q, kind %q", s.OperationName, op, s.tag("span.kind"))
			}
			if s.tag("gen_ai.conversation.id") == "" || s.tag("gen_ai.agent.name") == "" {
				t.Errorf("%s: conversation %q, agent %q", s.OperationName, s.tag("gen_ai.conversation.id"), s.tag("gen_ai.agent.name"))
			}
			for _, ref := range s.References {
				if ref.RefType == "FOLLOWS_FROM" && ref.TraceID != s.TraceID {
					links++ // a turn's root, to the turn before
				}
			}
			if s.tag("gen_ai.usage.cache_write.input_tokens") != s.tag("gen_ai.usage.cache_creation.input_tokens") {
				t.Errorf("%s: cache writes %q, as Jaeger reads them %q", s.OperationName, s.tag("gen_ai.usage.cache_write.input_tokens"), s.tag("gen_ai.usage.cache_creation.input_tokens"))
			}
		}
	}
	if spans != 24 || links != 1 {
		t.Errorf("%d spans in Jaeger, %d links from a turn to the one before; want 24 and 1", spans, links)
	}
}
