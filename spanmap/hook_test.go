package spanmap

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
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
	var saved []byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		ev, err := parse.DecodeHook(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		var st HookState // each event a new process: the state is read back
		if saved != nil {
			if err := jsonUnmarshal(saved, &st); err != nil {
				t.Fatal(err)
			}
		}
		now = now.Add(time.Second)
		for _, r := range NewHooks(opts).Step(&st, ev, now) {
			b, err := r.MarshalJSON() // and the records, through the spool
			if err != nil {
				t.Fatal(err)
			}
			var back SpanRecord
			if err := back.UnmarshalJSON(b); err != nil {
				t.Fatal(err)
			}
			Emit(context.Background(), tp.Tracer("hook"), back)
		}
		if saved, err = jsonMarshal(&st); err != nil {
			t.Fatal(err)
		}
	}
	return exp.GetSpans()
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

// stepHook records one event into st, a second after the last.
func stepHook(t *testing.T, st *HookState, line string) []SpanRecord {
	t.Helper()
	ev, err := parse.DecodeHook([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	return NewHooks(Options{}).Step(st, ev, st.Last.Add(time.Second))
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
		var st HookState
		st.Last = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		stepHook(t, &st, `{"hook_event_name":"preToolUse","conversation_id":"c","generation_id":"g","tool_name":"Shell","tool_input":{"command":"make"},"tool_use_id":"t"}`)
		done := stepHook(t, &st, `{"hook_event_name":"postToolUseFailure","conversation_id":"c","generation_id":"g","tool_name":"Shell","tool_input":{"command":"make"},"tool_use_id":"t","error_message":"it went wrong","failure_type":"`+tt.failureType+`"}`)
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

// sessionEnd's reason is recorded, and a session that ended in error or
// was aborted says so in its status.
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
		var st HookState
		stepHook(t, &st, `{"hook_event_name":"sessionStart","conversation_id":"c"}`)
		done := stepHook(t, &st, "\ufeff"+`{"hook_event_name":"sessionEnd","conversation_id":"c","reason":"`+tt.reason+`"}`)
		if len(done) != 1 {
			t.Fatalf("%q: %d records", tt.reason, len(done))
		}
		r := done[0]
		if Value(r.Attrs, SessionEndReason).AsString() != tt.reason || Value(r.Attrs, ErrorType).AsString() != tt.errorType || r.Status != tt.status {
			t.Errorf("%q: end_reason %q, error.type %q, status %v %q", tt.reason, Value(r.Attrs, SessionEndReason).AsString(),
				Value(r.Attrs, ErrorType).AsString(), r.Status, r.Message)
		}
	}
}
