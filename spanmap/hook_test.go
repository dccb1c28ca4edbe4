package spanmap

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/parse"
)

// hookSession steps a recorded-shape interactive session through Hooks,
// one event a second apart, carrying the state between events as JSON as
// hook processes do, and makes the records spans.
func hookSession(t *testing.T, opts Options) tracetest.SpanStubs {
	t.Helper()
	return hookConversation(t, "testdata/hooks/interactive-session.ndjson", opts)
}

// hookConversation is hookSession for the events in path.
func hookConversation(t *testing.T, path string, opts Options) tracetest.SpanStubs {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(NewIDGenerator()), sdktrace.WithSyncer(exp))
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	var entries []parse.HookEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		ev, err := parse.DecodeHook(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Second)
		entries = append(entries, parse.HookEntry{At: now, Event: ev})
	}
	// Built as the delivery builds it, a grace after the last event: a
	// turn still open is left open. The state reads back as the next
	// build reads it.
	var st HookState
	h := NewHooks(context.Background(), tp.Tracer("hook"), opts)
	built := h.Build(&st, entries, now.Add(HookGrace+time.Second))
	reload(t, &st)
	h.Make(built, "")
	spans := exp.GetSpans()
	for _, sp := range spans {
		checkOperation(t, sp.Name, attr(sp, OperationName), attr(sp, ToolName))
	}
	return spans
}

// An interactive session through its hooks is the span model a stream
// makes: a trace, the session, a chat per generation, each tool under the
// generation that ran it, tool times from the events' durations.
func TestHookSessionGolden(t *testing.T) {
	spans := hookSession(t, Options{})
	checkInvariants(t, spans)
	golden.Check(t, "testdata/hooks-interactive-session.golden", golden.Render(golden.FromStubs(spans)), *update)
	content := hookSession(t, Options{CaptureContent: true, MaxContent: 200})
	golden.Check(t, "testdata/hooks-interactive-session-content.golden", golden.Render(golden.FromStubs(content)), *update)
}

func jsonMarshal(v any) ([]byte, error)   { return json.Marshal(v) }
func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// buildHooks journals lines, a second apart, and builds them once every
// turn has closed.
func buildHooks(t *testing.T, lines ...string) HookBuilt {
	t.Helper()
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	var entries []parse.HookEntry
	for _, line := range lines {
		ev, err := parse.DecodeHook([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Second)
		entries = append(entries, parse.HookEntry{At: now, Event: ev})
	}
	var st HookState
	return NewHooks(context.Background(), nil, Options{}).Build(&st, entries, now.Add(HookIdle+time.Hour))
}

// named are the records of spans whose name starts with prefix.
func named(records []spanRecord, prefix string) []spanRecord {
	var out []spanRecord
	for _, r := range records {
		if strings.HasPrefix(r.Name, prefix) {
			out = append(out, r)
		}
	}
	return out
}

// postToolUseFailure's failure_type says how the tool span ends: a
// timeout is an error of type timeout, a permission denial a rejection.
func TestHookFailureTypes(t *testing.T) {
	for _, tt := range []struct {
		failureType, outcome, errorType string
		status                          codes.Code
	}{
		{"timeout", OutcomeError, "timeout", codes.Error},
		{"error", OutcomeError, "error", codes.Error},
		{"permission_denied", OutcomeRejected, "", codes.Unset},
		{"", OutcomeError, "error", codes.Error},
	} {
		done := named(buildHooks(t, `{"hook_event_name":"preToolUse","conversation_id":"c","generation_id":"g","tool_name":"Shell","tool_input":{"command":"make"},"tool_use_id":"t"}`,
			`{"hook_event_name":"postToolUseFailure","conversation_id":"c","generation_id":"g","tool_name":"Shell","tool_input":{"command":"make"},"tool_use_id":"t","error_message":"it went wrong","failure_type":"`+tt.failureType+`"}`).records(), "execute_tool")
		if len(done) != 1 {
			t.Fatalf("%q: %d records", tt.failureType, len(done))
		}
		r := done[0]
		if v := Value(r.Attrs, ToolOutcome).AsString(); v != tt.outcome || Value(r.Attrs, ErrorType).AsString() != tt.errorType ||
			r.Status != tt.status || Value(r.Attrs, ToolError).AsString() != "it went wrong" {
			t.Errorf("%q: outcome %q, error.type %q, status %v, cursor.tool.error %q; want %q %q %v", tt.failureType, v,
				Value(r.Attrs, ErrorType).AsString(), r.Status, Value(r.Attrs, ToolError).AsString(), tt.outcome, tt.errorType, tt.status)
		}
	}
}

// sessionEnd's reason is recorded on the turn it closes, and a session
// that ended in error or was aborted says so in its status. With no turn
// left to close, it makes no span and is said for the reports.
func TestHookSessionEndReasons(t *testing.T) {
	for _, tt := range []struct {
		reason, errorType string
		status            codes.Code
	}{
		{"completed", "", codes.Unset},
		{"aborted", "aborted", codes.Error},
		{"error", "agent_error", codes.Error},
		{"window_close", "", codes.Unset},
		{"user_close", "", codes.Unset},
	} {
		done := buildHooks(t, `{"hook_event_name":"sessionStart","conversation_id":"c"}`,
			`{"hook_event_name":"beforeSubmitPrompt","conversation_id":"c","generation_id":"g"}`,
			"\ufeff"+`{"hook_event_name":"sessionEnd","conversation_id":"c","reason":"`+tt.reason+`","duration_ms":9000}`).records()
		r := done[len(done)-1]
		if r.Name != RootName {
			t.Fatalf("%q: the last record is %s, not the turn", tt.reason, r.Name)
		}
		if Value(r.Attrs, SessionEndReason).AsString() != tt.reason || Value(r.Attrs, ErrorType).AsString() != tt.errorType || r.Status != tt.status {
			t.Errorf("%q: end_reason %q, error.type %q, status %v %q", tt.reason, Value(r.Attrs, SessionEndReason).AsString(),
				Value(r.Attrs, ErrorType).AsString(), r.Status, r.Message)
		}
	}

	b := buildHooks(t, `{"hook_event_name":"sessionStart","conversation_id":"c"}`,
		`{"hook_event_name":"sessionEnd","conversation_id":"c","reason":"user_close","duration_ms":9000}`)
	if done := b.records(); len(done) != 0 {
		t.Errorf("a sessionEnd with no turn made %d spans, want none", len(done))
	}
	if len(b.Ends) != 1 || b.Ends[0].Reason != "user_close" || b.Ends[0].Duration != 9*time.Second || b.Ends[0].ConversationID != "c" {
		t.Errorf("the end said for the reports: %+v", b.Ends)
	}
}
