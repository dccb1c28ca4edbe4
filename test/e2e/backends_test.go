package e2e

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// A session as a backend receives it: the spans of one trace.
type backendSession struct {
	kind  string // wrapped, replay, hook, acp
	spans []golden.Span
}

func (s backendSession) root() golden.Span {
	for _, sp := range s.spans {
		if sp.Name == "invoke_agent cursor-agent" {
			return sp
		}
	}
	return golden.Span{}
}

// total is the session's own total of a usage figure (cursor.usage.*).
func (s backendSession) total(figure string) float64 {
	return number(s.root(), "cursor.usage."+figure)
}

// sum adds a figure over the spans a backend counts.
func (s backendSession) sum(key string, counted func(golden.Span) bool) float64 {
	var n float64
	for _, sp := range s.spans {
		if counted(sp) {
			n += number(sp, key)
		}
	}
	return n
}

func op(s golden.Span) string { return value(s, "gen_ai.operation.name") }

func every(golden.Span) bool { return true }

// sameFigures says the spans a backend counts add up to the session's
// totals, for each usage figure and the cost.
func sameFigures(s backendSession, counted func(golden.Span) bool, figures ...string) error {
	for _, f := range figures {
		key, want := "gen_ai.usage."+f, s.total(f)
		if f == "cache_creation.input_tokens" {
			want = s.total("cache_write.input_tokens")
		}
		if f == "cost" {
			want = number(s.root(), "cursor.usage.cost")
		}
		// A total of 0 counts when the session says it (a turn that wrote
		// nothing to the cache); a total it does not say is no figure.
		said := value(s.root(), "cursor.usage."+strings.Replace(f, "cache_creation", "cache_write", 1)) != ""
		if got := s.sum(key, counted); math.Abs(got-want) > 1e-9 || want == 0 && !said {
			return fmt.Errorf("%s counts %v, the session's total is %v", key, got, want)
		}
	}
	return nil
}

// typedByOperation says every span with a gen_ai.operation.name is of a
// type the backend knows by it, and named by it; a span without one (a
// JSON-RPC request, a wait on the person) is a plain span to it.
func typedByOperation(types map[string]string) func(backendSession) error {
	return func(s backendSession) error {
		for _, sp := range s.spans {
			if op(sp) == "" {
				continue
			}
			if _, ok := types[op(sp)]; !ok || !strings.HasPrefix(sp.Name, op(sp)+" ") {
				return fmt.Errorf("%s: operation %q is no type the backend knows", sp.Name, op(sp))
			}
		}
		return nil
	}
}

// onEverySpan says every span carries the attributes, the conversation
// with the session's value.
func onEverySpan(keys ...string) func(backendSession) error {
	return func(s backendSession) error {
		conv := value(s.root(), "gen_ai.conversation.id")
		for _, sp := range s.spans {
			for _, k := range keys {
				if value(sp, k) == "" || k == "gen_ai.conversation.id" && value(sp, k) != conv {
					return fmt.Errorf("%s: %s %q", sp.Name, k, value(sp, k))
				}
			}
		}
		return nil
	}
}

// A backendRule is what one backend's ingestion does with cursor-otel's
// spans, restated from its source; holds says cursor-otel's spans give
// the user the right view under it. A gap is a kind of session the rule
// does not serve, with the words docs/backends.md says it in.
type backendRule struct {
	backend, source, rule string
	holds                 func(backendSession) error
	gaps                  map[string]string
}

var notGenerations = func(sp golden.Span) bool { return op(sp) != "invoke_agent" }
var generations = func(sp golden.Span) bool { return op(sp) == "chat" }

var backendRules = []backendRule{
	{"Jaeger", "jaeger-ui packages/jaeger-ui/src/utils/genai/detect.ts classifySpan", "agent, LLM call or tool call by gen_ai.operation.name",
		typedByOperation(map[string]string{"invoke_agent": "AGENT", "chat": "LLM_CALL", "execute_tool": "TOOL_CALL"}), nil},
	{"Jaeger", "jaeger-ui .../SpanDetail/GenAITab/genAiData.ts", "the GenAI tab's tokens, cache writes as cache_creation",
		func(s backendSession) error {
			for _, sp := range s.spans {
				if value(sp, "gen_ai.usage.cache_write.input_tokens") != value(sp, "gen_ai.usage.cache_creation.input_tokens") {
					return fmt.Errorf("%s: cache_write %q, cache_creation %q", sp.Name, value(sp, "gen_ai.usage.cache_write.input_tokens"), value(sp, "gen_ai.usage.cache_creation.input_tokens"))
				}
			}
			return sameFigures(s, every, "cache_creation.input_tokens")
		}, nil},
	{"Langfuse", "langfuse packages/shared/src/server/otel/ObservationTypeMapper.ts", "AGENT, GENERATION or TOOL by gen_ai.operation.name",
		typedByOperation(map[string]string{"invoke_agent": "AGENT", "chat": "GENERATION", "execute_tool": "TOOL"}), nil},
	{"Langfuse", "langfuse OtelIngestionProcessor.ts extractSessionId (the root span)", "the session from the root's gen_ai.conversation.id",
		func(s backendSession) error {
			if value(s.root(), "gen_ai.conversation.id") == "" {
				return errors.New("the root has no gen_ai.conversation.id")
			}
			return nil
		}, nil},
	{"Langfuse", "langfuse OtelIngestionProcessor.ts isAiSdkAgentOperation, extractGenericGenAiUsageDetails, extractCostDetails", "usage and cost summed over observations, agent spans left out",
		func(s backendSession) error {
			return sameFigures(s, notGenerations, "input_tokens", "output_tokens", "cache_read.input_tokens", "cache_creation.input_tokens", "cost")
		}, map[string]string{"wrapped": "leaves out of its totals: there the trace shows no tokens", "replay": "leaves out of its totals: there the trace shows no tokens",
			"acp": "an ACP turn's tokens and cost are on its agent span too"}},
	{"Phoenix", "phoenix src/phoenix/trace/gen_ai/conversion.py get_openinference_base_attributes", "session.id from gen_ai.conversation.id on any span",
		onEverySpan("gen_ai.conversation.id"), nil},
	{"Phoenix", "phoenix src/phoenix/db/insertion/span.py (tokens of LLM spans only)", "tokens counted on LLM spans",
		func(s backendSession) error {
			return sameFigures(s, generations, "input_tokens", "output_tokens", "cache_read.input_tokens", "cache_creation.input_tokens")
		}, map[string]string{"wrapped": "on LLM spans only", "replay": "on LLM spans only", "acp": "on LLM spans only"}},
	{"Opik", "opik OpenTelemetryService.java (thread_id from the root span)", "the thread from the root's gen_ai.conversation.id",
		func(s backendSession) error {
			if value(s.root(), "gen_ai.conversation.id") == "" {
				return errors.New("the root has no gen_ai.conversation.id")
			}
			return nil
		}, nil},
	{"Opik", "opik GenAIMappingRules.java, OpenTelemetryMappingUtils.java (usage map, cost summed over spans)", "usage and gen_ai.usage.cost summed over every span",
		func(s backendSession) error {
			return sameFigures(s, every, "input_tokens", "output_tokens", "cache_read.input_tokens", "cost")
		}, nil},
	{"Opik", "opik GenAIMappingRules.java (spanType tool)", "a tool span has gen_ai.tool.call.arguments or .result",
		func(s backendSession) error {
			for _, sp := range s.spans {
				if op(sp) == "execute_tool" && value(sp, "gen_ai.tool.call.arguments") == "" && value(sp, "gen_ai.tool.call.result") == "" {
					return fmt.Errorf("%s: neither arguments nor result", sp.Name)
				}
			}
			return nil
		}, nil},
	{"Datadog", "DataDog/documentation content/en/llm_observability/instrumentation/otel_instrumentation.md", "span kind by gen_ai.operation.name, session_id from gen_ai.conversation.id",
		func(s backendSession) error {
			if err := typedByOperation(map[string]string{"invoke_agent": "agent", "chat": "llm", "execute_tool": "tool"})(s); err != nil {
				return err
			}
			return onEverySpan("gen_ai.conversation.id")(s)
		}, nil},
	{"Datadog", "the same page (metrics from gen_ai.usage.input_tokens and output_tokens on any span)", "input and output tokens summed",
		func(s backendSession) error { return sameFigures(s, every, "input_tokens", "output_tokens") }, nil},
	{"Honeycomb", "docs.honeycomb.io send-data/agents, investigate/observe/agent-timeline", "the agent timeline: conversation and agent on every span, operation on every GenAI operation",
		func(s backendSession) error {
			if err := onEverySpan("gen_ai.conversation.id", "gen_ai.agent.name")(s); err != nil {
				return err
			}
			for _, sp := range s.spans {
				if op(sp) == "" && value(sp, "rpc.method") == "" && value(sp, "cursor.wait") != "true" {
					return fmt.Errorf("%s: no gen_ai.operation.name, and no JSON-RPC request or wait", sp.Name)
				}
			}
			return nil
		}, nil},
	{"SigNoz", "signoz pkg/statementbuilder/aistatementbuilder/statement_builder.go Scope, pkg/types/llmpricingruletypes/processorconfig.go", "tokens summed over every span; each span priced by its model",
		func(s backendSession) error {
			return sameFigures(s, every, "input_tokens", "output_tokens", "cache_read.input_tokens", "cache_creation.input_tokens")
		}, nil},
	{"SigNoz", "signoz statement_builder.go Scope (llm_call_count: gen_ai.request.model exists)", "LLM calls are the spans with a model",
		func(s backendSession) error {
			n, chats := 0, 0
			for _, sp := range s.spans {
				if value(sp, "gen_ai.request.model") != "" {
					n++
				}
				if op(sp) == "chat" {
					chats++
				}
			}
			if n != chats {
				return fmt.Errorf("%d spans with a model, %d model calls", n, chats)
			}
			return nil
		}, map[string]string{"wrapped": "counts one call more", "replay": "counts one call more", "hook": "counts one call more", "acp": "counts one call more"}},
}

// backendSessions are a wrapped run, a replay and an editor session, as
// a receiver gets them.
func backendSessions(t *testing.T) []backendSession {
	t.Helper()
	w := runWrapped(t, wrapSpec{args: streamArgs(), env: []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "FAKEAGENT_SPEED=1000000", "OTEL_METRICS_EXPORTER=none"}})
	if w.exit != 0 {
		t.Fatalf("wrapped run: exit %d, %s", w.exit, w.stderr)
	}
	replayed := otlptest.StartGRPC(t)
	if r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + replayed.Endpoint, "OTEL_METRICS_EXPORTER=none"}, nil, "replay", "--quiet", "examples/parallel-tools.ndjson"); r.exit != 0 {
		t.Fatalf("replay: exit %d, %s", r.exit, r.stderr)
	}
	hooked := otlptest.StartGRPC(t)
	runHooks(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + hooked.Endpoint, "CURSOR_OTEL_STATE_DIR=" + t.TempDir(), "OTEL_METRICS_EXPORTER=none"},
		linesOf(t, "spanmap/testdata/hooks/cli-2026.10.ndjson"))
	sessions := []backendSession{{"wrapped", w.spans}, {"replay", golden.FromOTLP(replayed.Spans())}}
	// An editor conversation is a trace a turn; its end is no trace.
	turns := map[string][]golden.Span{}
	for _, s := range waitForSpans(t, hooked, 7, 15*time.Second) {
		turns[s.TraceID] = append(turns[s.TraceID], s)
	}
	for _, root := range turnRoots(t, golden.FromOTLP(hooked.Spans())) {
		if value(root, "cursor.turn.number") != "" {
			sessions = append(sessions, backendSession{"hook", turns[root.TraceID]})
		}
	}
	// An editor session through ACP: a turn that asks the editor for a
	// file and a terminal (JSON-RPC spans under its tools).
	acp := otlptest.StartGRPC(t)
	e := startEditor(t, binary, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + acp.Endpoint, "CURSOR_OTEL_AGENT=" + fakeACP, "OTEL_METRICS_EXPORTER=none"}, "acp")
	if a := e.prompt(e.newSession(), "work", nil); a.Error != nil || a.eof {
		t.Fatalf("ACP turn: %+v", a)
	}
	sessions = append(sessions, backendSession{"acp", waitSpans(t, acp, "the ACP turn", func(s []golden.Span) bool { return len(roots(s)) == 1 })})
	e.close()
	if len(sessions) != 5 {
		t.Fatalf("%d sessions, want a wrapped run, a replay, an editor conversation's 2 turns and an ACP turn", len(sessions))
	}
	return sessions
}

// TestBackendConformance restates the rules each backend's own ingestion
// applies to GenAI spans, and checks them over the spans of a wrapped
// run, a replay and an editor session: each holds, or is a gap that
// docs/backends.md tells the user of.
func TestBackendConformance(t *testing.T) {
	page, err := os.ReadFile("docs/backends.md")
	if err != nil {
		t.Fatal(err)
	}
	sessions := backendSessions(t)
	var table []string
	for _, r := range backendRules {
		var cells []string
		for _, s := range sessions {
			err := r.holds(s)
			gap, isGap := r.gaps[s.kind]
			switch {
			case err == nil && isGap:
				t.Errorf("%s, %s (%s): holds for a %s session, which docs/backends.md calls a gap (%q)", r.backend, r.rule, r.source, s.kind, gap)
			case err != nil && !isGap:
				t.Errorf("%s, %s (%s): %s session: %v", r.backend, r.rule, r.source, s.kind, err)
			case isGap && !strings.Contains(string(page), gap):
				t.Errorf("%s, %s: docs/backends.md does not say %q", r.backend, r.rule, gap)
			}
			cells = append(cells, map[bool]string{true: "gap", false: "yes"}[isGap])
		}
		table = append(table, fmt.Sprintf("%-9s %-70s %s", r.backend, r.rule, strings.Join(cells, " ")))
	}
	slices.Sort(table)
	t.Logf("rule (wrapped replay hook-turn-1 hook-turn-2 acp):\n%s", strings.Join(table, "\n"))
}
