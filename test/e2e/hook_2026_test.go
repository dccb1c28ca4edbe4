package e2e

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// linesOf are the lines of a file.
func linesOf(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// number is an attribute's value as a number, 0 when it has none.
func number(s golden.Span, key string) float64 {
	f, _ := strconv.ParseFloat(value(s, key), 64)
	return f
}

// withinParents fails the test for each span not within its parent's
// time.
func withinParents(t *testing.T, spans []golden.Span) {
	t.Helper()
	byID := map[string]golden.Span{}
	for _, s := range spans {
		byID[s.SpanID] = s
	}
	for _, s := range spans {
		if p, ok := byID[s.ParentID]; ok && (s.Start.Before(p.Start) || s.End.After(p.End)) {
			t.Errorf("%s [%s, %s] is not within %s [%s, %s]", s.Name, s.Start.Format(time.StampMilli), s.End.Format(time.StampMilli),
				p.Name, p.Start.Format(time.StampMilli), p.End.Format(time.StampMilli))
		}
	}
}

// A cursor-agent 2026.10 conversation through its hooks, one process an
// event, into a real receiver: each generation's tokens and cost on its
// chat span and summed on the session (once over the trace), a thought
// sent twice one event, the compaction on the session, the subagent's
// facts, every span within its parent, and the session as long as its
// sessionEnd says.
func TestHookConversation2026(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	summary := filepath.Join(t.TempDir(), "runs.jsonl")
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + t.TempDir(), "OTEL_METRICS_EXPORTER=none",
		"CURSOR_OTEL_SUMMARY_JSON=" + summary}
	runHooks(t, env, linesOf(t, "spanmap/testdata/hooks/cli-2026.10.ndjson"))
	spans := waitForSpans(t, recv, 6, 15*time.Second)
	noSpanTwice(t, spans)
	withinParents(t, spans)
	if len(spans) != 6 {
		t.Fatalf("%d spans, want 6 (session, 2 chats, shell, task, subagent): %v", len(spans), spanNames(spans))
	}
	session := sessionSpan(t, spans)
	sums := map[string]float64{}
	thoughts, compactions := 0, 0
	for _, s := range spans {
		for _, key := range []string{"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.usage.cache_read.input_tokens",
			"gen_ai.usage.cache_write.input_tokens", "gen_ai.usage.cost"} {
			sums[key] += number(s, key)
		}
		if value(s, "gen_ai.conversation.id") != "8bb3c043-894b-4f2d-8751-0665bbc26eea" || value(s, "gen_ai.agent.name") == "" {
			t.Errorf("%s: conversation %q, agent %q", s.Name, value(s, "gen_ai.conversation.id"), value(s, "gen_ai.agent.name"))
		}
		for _, e := range s.Events {
			switch e.Name {
			case "cursor.thinking":
				thoughts++
			case "cursor.compaction":
				compactions++
			}
		}
	}
	for key, want := range map[string]float64{"gen_ai.usage.input_tokens": 59452, "gen_ai.usage.output_tokens": 334,
		"gen_ai.usage.cache_read.input_tokens": 42144, "gen_ai.usage.cache_write.input_tokens": 1200} {
		total := number(session, "cursor.usage."+key[len("gen_ai.usage."):])
		if sums[key] != want || total != want {
			t.Errorf("%s: %v over the spans, the session's total %v; want %v both", key, sums[key], total, want)
		}
	}
	if cost := number(session, "cursor.usage.cost"); cost <= 0 || math.Abs(cost-sums["gen_ai.usage.cost"]) > 1e-9 {
		t.Errorf("cost: %v over the spans, the session's %v; want them equal, and priced", sums["gen_ai.usage.cost"], cost)
	}
	if thoughts != 2 || compactions != 1 {
		t.Errorf("%d thinking events, %d compactions; want 2 (one a thought, each sent twice or once) and 1", thoughts, compactions)
	}
	for _, s := range spans {
		if s.Name == "invoke_agent explore" && (value(s, "cursor.subagent.model") != "composer-2.5-fast" || value(s, "cursor.subagent.status") != "completed" ||
			value(s, "cursor.subagent.tool_call_count") != "3") {
			t.Errorf("subagent: %v", s.Attributes)
		}
	}
	if d := session.End.Sub(session.Start); d < 60*time.Second {
		t.Errorf("session lasts %v; its sessionEnd says 60 s", d)
	}
	// The session's report has its tokens and cost, for compare.
	var report struct {
		Tokens struct{ Input, Output int64 } `json:"tokens"`
		Cost   float64                       `json:"cost_usd"`
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) { // polling: the report is written by the background delivery
		if b, err := os.ReadFile(summary); err == nil && json.Unmarshal(b, &report) == nil || time.Now().After(deadline) {
			break
		}
	}
	if report.Tokens.Input != 59452 || report.Tokens.Output != 334 || math.Abs(report.Cost-number(session, "cursor.usage.cost")) > 1e-9 {
		t.Errorf("the report says %+v; want 59452 in, 334 out, and the session's cost", report)
	}
}

// The real payloads of a cursor-agent 2026.10.01 session (shared/
// fixtures/hooks-2026.10: a failing go build with no preToolUse before
// it): every span within its parent, and the session as long as its
// sessionEnd's duration_ms.
func TestHookPayloads2026Real(t *testing.T) {
	dir := "../shared/fixtures/hooks-2026.10"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/fixtures/hooks-2026.10 not present")
	}
	var events []string
	for _, name := range []string{"sessionStart-1", "postToolUse-1", "afterShellExecution-2", "postToolUseFailure-1", "afterShellExecution-1", "sessionEnd-1"} {
		b, err := os.ReadFile(filepath.Join(dir, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, string(b))
	}
	recv := otlptest.StartGRPC(t)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + t.TempDir(), "OTEL_METRICS_EXPORTER=none"}
	runHooks(t, env, events)
	// The session, a generation, and a span per tool call: both calls
	// are told twice (postToolUse or postToolUseFailure, and
	// afterShellExecution), and each makes one span.
	spans := waitForSpans(t, recv, 4, 15*time.Second)
	if len(spans) == 4 {
		spans = waitForSpans(t, recv, 5, time.Second) // a fifth would be a call told twice
	}
	if len(spans) != 4 {
		t.Errorf("%d spans: %v; want the session, a generation and the two shell calls", len(spans), spanNames(spans))
	}
	noSpanTwice(t, spans)
	withinParents(t, spans)
	session := sessionSpan(t, spans)
	if d := session.End.Sub(session.Start); d < 20179*time.Millisecond {
		t.Errorf("session lasts %v; its sessionEnd says 20.179 s", d)
	}
}
