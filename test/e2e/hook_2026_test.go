package e2e

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
// event, into a real receiver: a trace a turn; each generation's tokens
// and cost on its chat span and summed on its turn's root (once over each
// trace), a thought sent twice one event, the compaction on the root of
// the turn it came in, the subagent's facts, every span within its
// parent; the last turn's root says how long the sessionEnd (come
// before that turn was built) says the conversation lasted, and no root
// is the end's own; the report has a line a turn, with its tokens and cost.
func TestHookConversation2026(t *testing.T) {
	t.Parallel() // waits on the hooks' grace and the delivery's timers, not the CPU
	recv := otlptest.StartGRPC(t)
	summary := filepath.Join(t.TempDir(), "runs.jsonl")
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + t.TempDir(), "OTEL_METRICS_EXPORTER=none",
		"CURSOR_OTEL_SUMMARY_JSON=" + summary}
	runHooks(t, env, linesOf(t, "spanmap/testdata/hooks/cli-2026.10.ndjson"))
	spans := waitForSpans(t, recv, 7, 15*time.Second)
	noSpanTwice(t, spans)
	withinParents(t, spans)
	if len(spans) != 7 {
		t.Fatalf("%d spans, want 7 (2 turns: roots, chats, shell, task, subagent): %v", len(spans), spanNames(spans))
	}
	checkTurns(t, "8bb3c043-894b-4f2d-8751-0665bbc26eea", spans, 2)
	roots := turnRoots(t, spans)
	if len(roots) != 2 {
		t.Fatalf("%d roots, want 2 (2 turns)", len(roots))
	}
	end := roots[1]
	sums, totals, costs := map[string]float64{}, map[string]float64{}, map[string]float64{}
	for _, r := range roots[:2] {
		for _, key := range []string{"input_tokens", "output_tokens", "cache_read.input_tokens", "cache_write.input_tokens", "cost"} {
			totals[key] += number(r, "cursor.usage."+key)
		}
	}
	thoughts, compactions := 0, 0
	for _, s := range spans {
		for _, key := range []string{"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.usage.cache_read.input_tokens",
			"gen_ai.usage.cache_write.input_tokens", "gen_ai.usage.cost"} {
			sums[key] += number(s, key)
		}
		costs[s.TraceID] += number(s, "gen_ai.usage.cost")
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
		total := totals[key[len("gen_ai.usage."):]]
		if sums[key] != want || total != want {
			t.Errorf("%s: %v over the spans, the turns' totals %v; want %v both", key, sums[key], total, want)
		}
	}
	for _, r := range roots[:2] {
		if cost := number(r, "cursor.usage.cost"); cost <= 0 || math.Abs(cost-costs[r.TraceID]) > 1e-9 {
			t.Errorf("cost: %v over turn %s's spans, its root's %v; want them equal, and priced", costs[r.TraceID], value(r, "cursor.turn.number"), cost)
		}
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
	if value(end, "cursor.session.duration_ms") != "60000" || value(end, "cursor.session.end_reason") != "completed" {
		t.Errorf("the conversation's end says %sms, %q; its sessionEnd says 60000, completed", value(end, "cursor.session.duration_ms"), value(end, "cursor.session.end_reason"))
	}
	checkTurnReports2026(t, summary, totals["cost"])
}

// checkTurnReports2026: the 2026.10 conversation's report file has a
// line a turn, with its tokens and cost, for compare; the conversation's
// end is no turn. cost is the turns' cost, as their roots say it.
func checkTurnReports2026(t *testing.T, summary string, cost float64) {
	t.Helper()
	type report struct {
		Session string                        `json:"session_id"`
		Tokens  struct{ Input, Output int64 } `json:"tokens"`
		Cost    float64                       `json:"cost_usd"`
	}
	var reports []report
	for deadline := time.Now().Add(10 * time.Second); len(reports) < 2 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) { // polling: the report is written by the background delivery
		reports = nil
		b, _ := os.ReadFile(summary)
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r report
			if json.Unmarshal([]byte(line), &r) == nil {
				reports = append(reports, r)
			}
		}
	}
	var in, out int64
	var sum float64
	for _, r := range reports {
		in, out, sum = in+r.Tokens.Input, out+r.Tokens.Output, sum+r.Cost
		if r.Session != "8bb3c043-894b-4f2d-8751-0665bbc26eea" {
			t.Errorf("a turn's report names conversation %q", r.Session)
		}
	}
	if len(reports) != 2 || in != 59452 || out != 334 || math.Abs(sum-cost) > 1e-9 || cost <= 0 {
		t.Errorf("the reports say %+v; want 2 turns, 59452 in, 334 out, and the turns' cost %v", reports, cost)
	}
}

// TestHookTurnReportsFromTheHooksFlag: --summary-json given to the hook
// on its command line (hooks.json), not in the environment, still gives
// each turn its report: the background delivery that builds the turns
// has only the environment, and the journal tells it where the hook
// said.
func TestHookTurnReportsFromTheHooksFlag(t *testing.T) {
	t.Parallel() // waits on the hooks' grace and the delivery's timers, not the CPU
	recv := otlptest.StartGRPC(t)
	summary := filepath.Join(t.TempDir(), "runs.jsonl")
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + t.TempDir(), "OTEL_METRICS_EXPORTER=none"}
	runHooks(t, env, linesOf(t, "spanmap/testdata/hooks/cli-2026.10.ndjson"), "--summary-json", summary)
	spans := waitForSpans(t, recv, 7, 15*time.Second)
	if len(spans) != 7 {
		t.Fatalf("%d spans: %v; want 7 (2 turns: roots, chats, shell, task, subagent)", len(spans), spanNames(spans))
	}
	var cost float64
	for _, r := range turnRoots(t, spans)[:2] {
		cost += number(r, "cursor.usage.cost")
	}
	checkTurnReports2026(t, summary, cost)
}

// The real payloads of a cursor-agent 2026.10.01 session (shared/
// fixtures/hooks-2026.10: a failing go build with no preToolUse before
// it): every span within its parent, and the session as long as its
// sessionEnd's duration_ms.
func TestHookPayloads2026Real(t *testing.T) {
	t.Parallel() // waits on the hooks' grace and the delivery's timers, not the CPU
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
