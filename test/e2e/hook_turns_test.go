package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// A conversation whose second turn never gets its stop, and that never
// ends: each turn arrives as a whole trace within seconds of what closed
// it (its stop, or the next prompt), the one without stop saying that it
// did not complete, the turns linked in order.
func TestHooksTurnWithoutStop(t *testing.T) {
	t.Parallel() // waits on the delivery's timers, not the CPU
	recv := otlptest.StartGRPC(t)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + t.TempDir(), "OTEL_METRICS_EXPORTER=none"}
	events := scriptedConversation("conv-nostop", 3, 2, false)
	// Turn 1: through its stop; it arrives while the conversation goes on.
	runHooks(t, env, events[:6])
	stopped := time.Now()
	spans := waitForSpans(t, recv, 3, 15*time.Second)
	arrived := time.Since(stopped)
	if len(spans) != 3 {
		t.Fatalf("after the first turn's stop: %d spans, want its 3 (root, chat, tool): %v", len(spans), spanNames(spans))
	}
	t.Logf("the first turn arrived whole %v after its stop", arrived.Round(time.Millisecond))
	if timingChecked(t) && arrived > 5*time.Second {
		t.Errorf("the first turn arrived %v after its stop; want within seconds", arrived)
	}
	// Turn 2 (no stop), then turn 3's prompt closes it.
	runHooks(t, env, events[6:11])
	spans = waitForSpans(t, recv, 6, 15*time.Second)
	if len(spans) != 6 {
		t.Fatalf("after the next prompt: %d spans, want 6: %v", len(spans), spanNames(spans))
	}
	runHooks(t, env, events[11:])
	spans = waitForSpans(t, recv, 9, 15*time.Second)
	noSpanTwice(t, spans)
	checkTurns(t, "conv-nostop", spans, 3)
	roots := turnRoots(t, spans)
	if len(roots) != 3 {
		t.Fatal("not three turns")
	}
	for i, want := range []struct{ end, status string }{{"stop", "Unset"}, {"next_prompt", "Error"}, {"stop", "Unset"}} {
		r := roots[i]
		if value(r, "cursor.turn.end") != want.end || r.Status != want.status || value(r, "cursor.turn.number") != fmt.Sprint(i+1) {
			t.Errorf("turn %d: ended by %q, status %q %q, number %s; want %s, %s", i+1, value(r, "cursor.turn.end"), r.Status, r.StatusMessage,
				value(r, "cursor.turn.number"), want.end, want.status)
		}
	}
	if value(roots[1], "error.type") != "incomplete" {
		t.Errorf("the turn without stop: error.type %q, want incomplete", value(roots[1], "error.type"))
	}
}

// Turns link in order across a long conversation, read from what the
// receiver got (not counted only).
func TestHooksTurnsLinkInOrder(t *testing.T) {
	t.Parallel() // waits on the hooks' grace and the delivery's timers, not the CPU
	recv := otlptest.StartGRPC(t)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + t.TempDir(), "OTEL_METRICS_EXPORTER=none"}
	runHooks(t, env, scriptedConversation("conv-five", 5, 0, true))
	spans := waitForSpans(t, recv, 15, 15*time.Second)
	noSpanTwice(t, spans)
	checkTurns(t, "conv-five", spans, 5) // the end is on the last turn
	var numbers []string
	for _, r := range turnRoots(t, spans) {
		numbers = append(numbers, value(r, "cursor.turn.number"))
	}
	if !slices.Equal(numbers, []string{"1", "2", "3", "4", "5"}) {
		t.Errorf("turn numbers %q in order of start; want 1 to 5", numbers)
	}
}

// A wrapped run that resumes a conversation this machine traced before
// (the same session_id: cursor-agent --resume) links to that
// conversation's last turn, whether the editor's hooks traced it or
// another wrapped run, and is the last turn the next one links to.
func TestResumedRunLinksToLastTurn(t *testing.T) {
	// Waits on the hooks' grace and the delivery's timers, not the CPU.
	t.Parallel()
	const conv = "7f3c9a1e-5b2d-4c8e-9f10-2a6b3c4d5e6f" // examples/fix-failing-test.ndjson's session_id
	state := t.TempDir()
	hooked := otlptest.StartGRPC(t)
	runHooks(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + hooked.Endpoint, "CURSOR_OTEL_STATE_DIR=" + state, "OTEL_METRICS_EXPORTER=none"},
		scriptedConversation(conv, 1, 0, false))
	turn := turnRoots(t, waitForSpans(t, hooked, 3, 15*time.Second))
	if len(turn) != 1 {
		t.Fatalf("%d turns from the hooks, want 1", len(turn))
	}
	var links []string
	for range 2 {
		w := runWrapped(t, wrapSpec{args: streamArgs(), env: []string{"CURSOR_OTEL_STATE_DIR=" + state,
			"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "FAKEAGENT_SPEED=1000000", "OTEL_METRICS_EXPORTER=none"}})
		if w.exit != 0 {
			t.Fatalf("wrapped run: exit %d %s", w.exit, w.stderr)
		}
		root := sessionSpan(t, w.spans)
		links = append(links, strings.Join(root.Links, ","), root.TraceID+"/"+root.SpanID)
	}
	if want := turn[0].TraceID + "/" + turn[0].SpanID; links[0] != want {
		t.Errorf("the first resumed run links to %q; want the editor's turn %s", links[0], want)
	}
	if links[2] != links[1] {
		t.Errorf("the second resumed run links to %q; want the first run, %s", links[2], links[1])
	}
}

// Two conversations at once, their hook processes running side by side
// as two editor windows' do: each turn of each a whole trace in its own
// conversation, linked within it, nothing twice.
func TestHooksTwoConversationsAtOnce(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + t.TempDir(), "OTEL_METRICS_EXPORTER=none"}
	convs := map[string][]string{"conv-left": scriptedConversation("conv-left", 3, 0, true), "conv-right": scriptedConversation("conv-right", 3, 2, false)}
	done := make(chan struct{})
	for _, events := range convs {
		go func() {
			defer func() { done <- struct{}{} }()
			for _, line := range events {
				r := runBinary(t, env, strings.NewReader(line+"\n"), "hook")
				if r.exit != 0 || r.stderr != "" {
					t.Errorf("hook: exit %d, stderr %q", r.exit, r.stderr)
				}
			}
		}()
	}
	<-done
	<-done
	spans := waitForSpans(t, recv, 18, 15*time.Second) // 3 turns of 3 (the last with the end); 3 turns of 3
	noSpanTwice(t, spans)
	by := map[string][]golden.Span{}
	for _, s := range spans {
		by[value(s, "gen_ai.conversation.id")] = append(by[value(s, "gen_ai.conversation.id")], s)
	}
	checkTurns(t, "conv-left", by["conv-left"], 3)
	checkTurns(t, "conv-right", by["conv-right"], 3)
	if len(spans) != 18 {
		t.Errorf("%d spans, want 18", len(spans))
	}
}

// scriptedConversation is a conversation of n turns (a prompt, a tool
// call, a response, a stop), the turn noStop without its stop, and a
// sessionEnd when ended.
func scriptedConversation(conv string, n, noStop int, ended bool) []string {
	common := `"conversation_id":"` + conv + `","model":"claude-4.6-sonnet","workspace_roots":["/w"]`
	events := []string{`{"hook_event_name":"sessionStart",` + common + `,"generation_id":"","composer_mode":"agent"}`}
	for i := 1; i <= n; i++ {
		g := fmt.Sprintf(`,"generation_id":"%s-g%d"`, conv, i)
		tool := fmt.Sprintf(`,"tool_name":"Read","tool_input":{"file_path":"a.go"},"tool_use_id":"%s-t%d"`, conv, i)
		events = append(events,
			`{"hook_event_name":"beforeSubmitPrompt",`+common+g+`,"prompt":"turn"}`,
			`{"hook_event_name":"preToolUse",`+common+g+tool+`}`,
			`{"hook_event_name":"postToolUse",`+common+g+tool+`,"tool_output":"{}","duration":12}`,
			`{"hook_event_name":"afterAgentResponse",`+common+g+`,"text":"done","input_tokens":1000,"output_tokens":50}`)
		if i != noStop {
			events = append(events, `{"hook_event_name":"stop",`+common+g+`,"status":"completed","input_tokens":1000,"output_tokens":50}`)
		}
	}
	if ended {
		events = append(events, `{"hook_event_name":"sessionEnd",`+common+`,"generation_id":"","reason":"user_close","duration_ms":60000}`)
	}
	return events
}

// checkTurns: a conversation's spans are want whole traces, each rooted
// in a turn (no other root: a backend's trace list shows one trace a
// turn), each root linked to the one before, no span whose parent never
// came.
func checkTurns(t *testing.T, conv string, spans []golden.Span, want int) {
	t.Helper()
	roots := turnRoots(t, spans)
	if len(roots) != want {
		t.Errorf("%s: %d roots, want %d: %v", conv, len(roots), want, spanNames(spans))
		for _, s := range spans { // what a rare failure needs to be read
			t.Logf("  %s %s/%s parent %q turn %q gen %q %s..%s links %v", s.Name, s.TraceID, s.SpanID, s.ParentID,
				value(s, "cursor.turn.number"), value(s, "cursor.generation_id"), s.Start.Format("15:04:05.000"), s.End.Format("15:04:05.000"), s.Links)
		}
	}
	ids, traces := map[string]bool{}, map[string]bool{}
	for _, s := range spans {
		ids[s.TraceID+"/"+s.SpanID] = true
		traces[s.TraceID] = true
		if s.ParentID == "" && (s.Name != "invoke_agent cursor-agent" || value(s, "cursor.turn.number") == "") {
			t.Errorf("%s: a root that is no turn: %s %v", conv, s.Name, s.Attributes)
		}
	}
	if len(traces) != len(roots) {
		t.Errorf("%s: %d traces for %d turns", conv, len(traces), len(roots))
	}
	for _, s := range spans {
		if s.ParentID != "" && !ids[s.TraceID+"/"+s.ParentID] {
			t.Errorf("%s: %s's parent never came", conv, s.Name)
		}
	}
	for i, r := range roots {
		if i > 0 && !slices.Equal(r.Links, []string{roots[i-1].TraceID + "/" + roots[i-1].SpanID}) {
			t.Errorf("%s: root %d links to %v, not to the root before it", conv, i+1, r.Links)
		}
	}
}
