package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// sessionVars keep the conversation id as CI scripts do: in SESSION_ID,
// CURSOR_SESSION_ID, and even in a variable whose name says secret.
func sessionVars(id string) []string {
	return []string{"CURSOR_SESSION_ID=" + id, "SESSION_ID=" + id, "CURSOR_RESUME_TOKEN=" + id}
}

// everySpanIn says which spans do not carry conv as their conversation.
func everySpanIn(t *testing.T, conv string, spans []golden.Span) {
	t.Helper()
	if len(spans) == 0 {
		t.Fatal("no spans")
	}
	for _, s := range spans {
		if got := value(s, "gen_ai.conversation.id"); got != conv {
			t.Errorf("%s: gen_ai.conversation.id %q, want %q", s.Name, got, conv)
		}
	}
}

// A CI script resumes a session kept in CURSOR_SESSION_ID and SESSION_ID
// (and in a variable named as a secret): every span of each run carries
// the conversation's id, the command line names it, and the second run
// links to the first.
func TestWrapResumeKeepsTheConversationID(t *testing.T) {
	const conv = "7f3c9a1e-5b2d-4c8e-9f10-2a6b3c4d5e6f" // examples/fix-failing-test.ndjson's session_id
	env := append([]string{"CURSOR_OTEL_STATE_DIR=" + t.TempDir(), "FAKEAGENT_STREAM=examples/fix-failing-test.ndjson",
		"FAKEAGENT_SPEED=1000000", "OTEL_METRICS_EXPORTER=none"}, sessionVars(conv)...)
	var roots []golden.Span
	for range 2 {
		w := runWrapped(t, wrapSpec{args: streamArgs("--resume", conv, "go on"), env: env})
		if w.exit != 0 {
			t.Fatalf("wrapped run: exit %d %s", w.exit, w.stderr)
		}
		everySpanIn(t, conv, w.spans)
		root := sessionSpan(t, w.spans)
		if cl := value(root, "process.command_line"); !strings.Contains(cl, "--resume "+conv) {
			t.Errorf("command line %q does not name the conversation resumed", cl)
		}
		roots = append(roots, root)
	}
	if want := roots[0].TraceID + "/" + roots[0].SpanID; !slices.Equal(roots[1].Links, []string{want}) {
		t.Errorf("the second run links to %v, want the first run's root %s", roots[1].Links, want)
	}
}

// An editor conversation whose id the environment holds in such
// variables: every span carries it, and the turns link.
func TestHooksKeepTheConversationID(t *testing.T) {
	t.Parallel() // waits on the hooks' grace and the delivery's timers, not the CPU
	const conv = "5d0c6b1a-2e3f-4a5b-9c8d-7e6f5a4b3c2d"
	recv := otlptest.StartGRPC(t)
	env := append([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + t.TempDir(), "OTEL_METRICS_EXPORTER=none"},
		sessionVars(conv)...)
	runHooks(t, env, scriptedConversation(conv, 2, 0, false))
	spans := waitForSpans(t, recv, 6, 15*time.Second)
	noSpanTwice(t, spans)
	everySpanIn(t, conv, spans)
	checkTurns(t, conv, spans, 2)
}

// An ACP session whose id the environment holds in such variables: every
// span carries it, and the turns link.
func TestACPKeepsTheConversationID(t *testing.T) {
	const sid = "a3e1c2d4-5b6f-4a7b-8c9d-0e1f2a3b4c5d"
	recv := otlptest.StartGRPC(t)
	env := append([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeACP, "HOME=" + t.TempDir()},
		sessionVars(sid)...)
	e := startEditor(t, binary, env, "acp")
	e.request("initialize", map[string]any{"protocolVersion": 1})
	if a := e.request("session/load", map[string]any{"sessionId": sid, "cwd": "/w", "mcpServers": []any{}}); a.Error != nil || a.eof {
		t.Fatalf("session/load: %+v", a)
	}
	e.prompt(sid, "echo", nil)
	e.prompt(sid, "echo", nil)
	e.close()
	spans := waitSpans(t, recv, "both turns", func(s []golden.Span) bool { return len(roots(s)) == 2 })
	turns := roots(spans)
	slicesSortByStart(turns)
	inTurns := map[string]bool{turns[0].TraceID: true, turns[1].TraceID: true}
	var turnSpans []golden.Span
	for _, s := range spans {
		if inTurns[s.TraceID] {
			turnSpans = append(turnSpans, s)
		}
	}
	everySpanIn(t, sid, turnSpans)
	if want := turns[0].TraceID + "/" + turns[0].SpanID; !slices.Equal(turns[1].Links, []string{want}) {
		t.Errorf("the second turn links to %v, want the first's root %s", turns[1].Links, want)
	}
}
