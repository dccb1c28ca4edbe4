package spanmap

import (
	"math"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/golden"
)

// A conversation of cursor-agent 2026.10 through its hooks, in the shapes
// its captures show (testdata/hooks/cli-2026.10.ndjson): a trace per
// turn; each generation's chat span has its own tokens and cost, its
// turn's root their sums under cursor.usage.* (so every gen_ai.usage
// figure counts once over each trace); a thought sent twice is one
// thinking event and no generation of its own; the compaction is an
// event on the root of the turn it came in, with its own model; the
// subagent's span has what subagentStart and subagentStop said, under its
// task; every span lies within its parent; the conversation's end, after
// its last turn, says the duration_ms its sessionEnd reports.
func TestHookConversation2026(t *testing.T) {
	spans := hookConversation(t, "testdata/hooks/cli-2026.10.ndjson", Options{})
	checkNesting(t, spans)
	golden.Check(t, "testdata/hooks-cli-2026.10.golden", golden.Render(golden.FromStubs(spans)), *update)

	var roots, chats, subagents []tracetest.SpanStub
	var end tracetest.SpanStub
	sums := map[attribute.Key]float64{}
	costs := map[trace.TraceID]float64{}
	for _, s := range spans {
		costs[s.SpanContext.TraceID()] += value(s, GenAICost).AsFloat64()
		switch {
		case s.Name == RootName:
			roots = append(roots, s)
			if attr(s, SessionEndReason) != "" {
				end = s
			}
		case attr(s, OperationName) == OpChat:
			chats = append(chats, s)
		case attr(s, OperationName) == OpInvokeAgent:
			subagents = append(subagents, s)
		}
		for _, kv := range s.Attributes {
			switch kv.Value.Type() {
			case attribute.INT64:
				sums[kv.Key] += float64(kv.Value.AsInt64())
			case attribute.FLOAT64:
				sums[kv.Key] += kv.Value.AsFloat64()
			}
		}
	}
	if len(chats) != 2 {
		t.Fatalf("%d chat spans, want 2 (a thought's copy makes none)", len(chats))
	}
	for _, c := range chats {
		thoughts := 0
		for _, e := range c.Events {
			if e.Name == EventThinking {
				thoughts++
			}
		}
		if thoughts != 1 {
			t.Errorf("%s: %d thinking events, want 1", c.Name, thoughts)
		}
		if c.Name != "chat claude-4.6-sonnet" {
			t.Errorf("chat span %q: want the model the thought named, not Cursor's default", c.Name)
		}
	}
	// 28452+31000 in (the cache included, as Cursor counts it), 84+250
	// out, 14144+28000 read from the cache, 0+1200 written to it.
	for key, want := range map[attribute.Key]float64{
		InputTokens: 59452, OutputTokens: 334, CacheReadTokens: 42144, CacheWriteTokens: 1200, CacheCreateTokens: 1200,
		TotalInputTokens: 59452, TotalOutputTokens: 334, TotalCacheReadTokens: 42144, TotalCacheWriteTokens: 1200,
	} {
		if sums[key] != want {
			t.Errorf("%s summed over the trace: %v, want %v", key, sums[key], want)
		}
	}
	if len(roots) != 2 {
		t.Fatalf("%d turn roots, want 2 (a trace a turn)", len(roots))
	}
	compactions := map[int64]int{}
	for _, root := range roots {
		for _, key := range []attribute.Key{InputTokens, OutputTokens, GenAICost} {
			if v := value(root, key); v.Type() != attribute.EMPTY {
				t.Errorf("a turn's root carries %s=%v: summed over the spans, it would count twice", key, v.String())
			}
		}
		cost := value(root, CostUSD).AsFloat64()
		if got := costs[root.SpanContext.TraceID()]; cost <= 0 || math.Abs(got-cost) > 1e-9 {
			t.Errorf("turn %d: gen_ai.usage.cost summed over its trace %v, its root's cursor.usage.cost %v: want them equal, and a price",
				value(root, TurnNumber).AsInt64(), got, cost)
		}
		for _, e := range root.Events {
			if e.Name == EventCompaction {
				compactions[value(root, TurnNumber).AsInt64()]++
				if m := eventAttr(e.Attributes, CompactionModel); m != "composer-2.5-fast" {
					t.Errorf("compaction model %q, want its own", m)
				}
			}
		}
		if attr(root, RequestModel) != "claude-4.6-sonnet" {
			t.Errorf("turn model %q, want the conversation's own model", attr(root, RequestModel))
		}
	}
	if len(compactions) != 1 || compactions[2] != 1 {
		t.Errorf("compaction events by turn %v; want 1, on the second turn, where it came", compactions)
	}
	if d := value(end, SessionDuration).AsInt64(); d != 60000 || attr(end, SessionEndReason) != "completed" {
		t.Errorf("the conversation's end says %dms, reason %q; its sessionEnd says 60000, completed", d, attr(end, SessionEndReason))
	}

	if len(subagents) != 1 {
		t.Fatalf("%d subagent spans, want 1", len(subagents))
	}
	sub := subagents[0]
	for key, want := range map[attribute.Key]string{SubagentModel: "composer-2.5-fast", SubagentType: "explore", SubagentStatus: "completed",
		AgentName: "explore", ConversationID: "8bb3c043-894b-4f2d-8751-0665bbc26eea"} {
		if got := attr(sub, key); got != want {
			t.Errorf("subagent %s = %q, want %q", key, got, want)
		}
	}
	for key, want := range map[attribute.Key]int64{SubagentMessages: 6, SubagentToolCalls: 3, SubagentLoops: 2} {
		if got := value(sub, key).AsInt64(); got != want {
			t.Errorf("subagent %s = %d, want %d", key, got, want)
		}
	}
	if d := sub.EndTime.Sub(sub.StartTime); d != 4200*time.Millisecond {
		t.Errorf("subagent lasts %v, want the 4.2s subagentStop says", d)
	}
}

// checkNesting fails the test for each span that does not lie within its
// parent, and each span without its conversation and agent.
func checkNesting(t *testing.T, spans tracetest.SpanStubs) {
	t.Helper()
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID()] = s
	}
	for _, s := range spans {
		if attr(s, ConversationID) == "" || attr(s, AgentName) == "" {
			t.Errorf("%s: no conversation or agent name", s.Name)
		}
		p, ok := byID[s.Parent.SpanID()]
		if !ok {
			continue
		}
		if s.StartTime.Before(p.StartTime) || s.EndTime.After(p.EndTime) {
			t.Errorf("%s [%v, %v] is not within its parent %s [%v, %v]", s.Name, s.StartTime.Format(time.StampMilli), s.EndTime.Format(time.StampMilli),
				p.Name, p.StartTime.Format(time.StampMilli), p.EndTime.Format(time.StampMilli))
		}
		if s.Status.Code == codes.Error && s.Status.Description == "" {
			t.Errorf("%s: an error without a message", s.Name)
		}
	}
}

func value(s tracetest.SpanStub, key attribute.Key) attribute.Value { return Value(s.Attributes, key) }

func eventAttr(attrs []attribute.KeyValue, key attribute.Key) string {
	return Value(attrs, key).AsString()
}

// cursor-agent 2026.10 tells a shell call twice, afterShellExecution and
// postToolUse (or postToolUseFailure), in either order: one span, with
// the outcome postToolUse gives and the output afterShellExecution does.
func TestShellCallToldTwice(t *testing.T) {
	after := `{"hook_event_name":"afterShellExecution","conversation_id":"c","generation_id":"g","command":"go build ./...","output":"undefined: greet\n","duration":3113.281}`
	post := `{"hook_event_name":"postToolUseFailure","conversation_id":"c","generation_id":"g","tool_name":"Shell","tool_input":{"command":"go build ./..."},"error_message":"undefined: greet","failure_type":"error","duration":3113.281,"tool_use_id":"t1"}`
	next := `{"hook_event_name":"afterAgentResponse","conversation_id":"c","generation_id":"g","text":"done"}`
	for name, order := range map[string][]string{"after first": {after, post, next}, "post first": {post, after, next}, "after alone": {after, next}} {
		tools := named(buildHooks(t, order...).records(), "execute_tool")
		if len(tools) != 1 {
			t.Errorf("%s: %d tool spans, want 1", name, len(tools))
			continue
		}
		wantStatus := codes.Error
		if name == "after alone" {
			wantStatus = codes.Unset
		}
		if r := tools[0]; r.Status != wantStatus || r.End.Sub(r.Start) != 3113281*time.Microsecond {
			t.Errorf("%s: status %v, %v long; want %v, 3.113281s", name, r.Status, r.End.Sub(r.Start), wantStatus)
		}
	}
}
