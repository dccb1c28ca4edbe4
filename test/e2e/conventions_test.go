package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// genAIOperations are the values of gen_ai.operation.name the GenAI
// conventions define (semantic-conventions-genai, model/gen-ai/registry.yaml).
var genAIOperations = []string{"chat", "generate_content", "text_completion", "embeddings", "retrieval", "create_agent",
	"invoke_agent", "execute_tool", "invoke_workflow", "plan", "search_memory", "create_memory", "update_memory",
	"upsert_memory", "delete_memory", "create_memory_store", "delete_memory_store"}

// checkConventions: every span of a mode is a GenAI operation named as
// the conventions define it (execute_tool with its gen_ai.tool.name), a
// JSON-RPC request that is none (rpc.system=jsonrpc, rpc.method, no
// gen_ai.operation.name) or a wait on the person; none says a
// gen_ai.agent.id (cursor-agent gives no stable one); each carries
// gen_ai.agent.name and its turn's gen_ai.conversation.id.
func checkConventions(t *testing.T, mode string, spans []golden.Span) {
	t.Helper()
	conv, ids := map[string]string{}, map[string]bool{}
	for _, s := range spans {
		ids[s.TraceID+"/"+s.SpanID] = true
	}
	for _, s := range spans {
		if !ids[s.TraceID+"/"+s.ParentID] { // a turn's root (its parent, a TRACEPARENT's, is elsewhere)
			conv[s.TraceID] = value(s, "gen_ai.conversation.id")
		}
	}
	for _, s := range spans {
		op, method := value(s, "gen_ai.operation.name"), value(s, "rpc.method")
		switch {
		case op != "" && (strings.Contains(op, "/") || !slices.Contains(genAIOperations, op)):
			t.Errorf("%s: %s: gen_ai.operation.name %q is no GenAI operation", mode, s.Name, op)
		case op == "execute_tool" && value(s, "gen_ai.tool.name") == "":
			t.Errorf("%s: %s: execute_tool without gen_ai.tool.name", mode, s.Name)
		case op == "" && method != "" && value(s, "rpc.system") != "jsonrpc":
			t.Errorf("%s: %s: a JSON-RPC request without rpc.system=jsonrpc", mode, s.Name)
		case op == "" && method == "" && value(s, "cursor.wait") != "true":
			t.Errorf("%s: %s: neither a GenAI operation, a JSON-RPC request nor a wait", mode, s.Name)
		}
		if value(s, "gen_ai.agent.id") != "" {
			t.Errorf("%s: %s: gen_ai.agent.id %q, which is no stable id", mode, s.Name, value(s, "gen_ai.agent.id"))
		}
		if value(s, "gen_ai.agent.name") == "" || value(s, "gen_ai.conversation.id") != conv[s.TraceID] {
			t.Errorf("%s: %s: agent %q, conversation %q; want an agent and its turn's conversation %q", mode, s.Name,
				value(s, "gen_ai.agent.name"), value(s, "gen_ai.conversation.id"), conv[s.TraceID])
		}
	}
}

// Every span of every mode (a wrapped run, replays, an editor
// conversation through hooks, an editor session through ACP) is named
// by the conventions, checked as a collector gets it.
func TestEverySpanOfEveryModeByTheConventions(t *testing.T) {
	w := runWrapped(t, wrapSpec{args: streamArgs(), env: []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "FAKEAGENT_SPEED=1000000", "OTEL_METRICS_EXPORTER=none"}})
	checkConventions(t, "wrap", w.spans)

	replayed := otlptest.StartGRPC(t)
	files := []string{"examples/parallel-tools.ndjson", "examples/failed-run.ndjson", "spanmap/testdata/streams/newer-shapes.ndjson",
		"spanmap/testdata/streams/permission-denied.ndjson", "spanmap/testdata/streams/payload.ndjson"}
	if r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + replayed.Endpoint, "OTEL_METRICS_EXPORTER=none"}, nil, append([]string{"replay", "--quiet"}, files...)...); r.exit != 0 {
		t.Fatalf("replay: exit %d, %s", r.exit, r.stderr)
	}
	checkConventions(t, "replay", golden.FromOTLP(replayed.Spans()))

	hooked := otlptest.StartGRPC(t)
	runHooks(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + hooked.Endpoint, "CURSOR_OTEL_STATE_DIR=" + t.TempDir(), "OTEL_METRICS_EXPORTER=none"},
		linesOf(t, "spanmap/testdata/hooks/cli-2026.10.ndjson"))
	checkConventions(t, "hooks", waitForSpans(t, hooked, 7, 15*time.Second))

	recv := otlptest.StartGRPC(t)
	e := startEditor(t, binary, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeACP, "OTEL_METRICS_EXPORTER=none"}, "acp")
	sid := e.newSession()
	for _, text := range []string{"work", "ask", "subagent"} {
		if a := e.prompt(sid, text, nil); a.Error != nil || a.eof {
			t.Fatalf("%s turn: %+v", text, a)
		}
	}
	if a := e.request("session/set_mode", map[string]any{"sessionId": sid, "modeId": "ask"}); a.eof {
		t.Fatalf("set_mode: %+v", a)
	}
	spans := waitSpans(t, recv, "three turns", func(s []golden.Span) bool { return len(roots(s)) == 3 })
	if len(spansNamed(spans, "fs/")) == 0 || len(spansNamed(spans, "terminal/")) == 0 {
		t.Errorf("the session made no request of the editor:\n%s", golden.Render(spans))
	}
	checkConventions(t, "acp", spans)
	e.close()
}
