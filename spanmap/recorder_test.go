package spanmap

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/parse"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// replayTime is the time given to streams that carry none.
var replayTime = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// record replays a stream into an in-memory exporter, as cursor-otel
// replay does, and returns the exported spans.
func record(t testing.TB, r io.Reader, opts Options) tracetest.SpanStubs {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return replayTime }
	}
	rec, exp := newTestRecorder(opts)
	dec := parse.NewDecoder(r)
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read stream: %v", err)
		}
		rec.Record(ev, time.Time{})
	}
	rec.Finish(End{})
	return exp.GetSpans()
}

// newTestRecorder records into an in-memory exporter, each span as it ends.
func newTestRecorder(opts Options) (*Stream, *tracetest.InMemoryExporter) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(NewIDGenerator()), sdktrace.WithSyncer(exp))
	return NewStream(context.Background(), tp.Tracer("test"), opts), exp
}

func recordFile(t testing.TB, path string, opts Options) tracetest.SpanStubs {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return record(t, f, opts)
}

func TestGoldenTrees(t *testing.T) {
	tests := []struct {
		name string
		path string
		opts Options
	}{
		{"example-fix-failing-test", "../examples/fix-failing-test.ndjson", Options{}},
		{"example-parallel-tools", "../examples/parallel-tools.ndjson", Options{}},
		{"example-failed-run", "../examples/failed-run.ndjson", Options{}},
		{"example-fix-failing-test-content", "../examples/fix-failing-test.ndjson", Options{CaptureContent: true, MaxContent: 96}},
		{"dialect-hyphenated", "testdata/streams/hyphenated.ndjson", Options{}},
		{"dialect-payload", "testdata/streams/payload.ndjson", Options{}},
		{"dialect-untimed", "testdata/streams/untimed.ndjson", Options{}},
		{"partial-output", "testdata/streams/partial-output.ndjson", Options{CaptureContent: true}},
		{"malformed", "testdata/streams/malformed.ndjson", Options{}},
		{"two-sessions", "testdata/streams/two-sessions.ndjson", Options{}},
		{"concatenated", "testdata/streams/concatenated.ndjson", Options{}},
		{"resumed-chat", "testdata/streams/resumed-chat.ndjson", Options{}},
		{"newer-shapes", "testdata/streams/newer-shapes.ndjson", Options{}},
		{"newer-shapes-content", "testdata/streams/newer-shapes.ndjson", Options{CaptureContent: true, MaxContent: 200}},
		{"error-result", "testdata/streams/error-result.ndjson", Options{}},
		{"unmatched-tools", "testdata/streams/unmatched-tools.ndjson", Options{}},
		{"permission-denied", "testdata/streams/permission-denied.ndjson", Options{}},
		{"hook-blocked", "testdata/streams/hook-blocked.ndjson", Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans := recordFile(t, tt.path, tt.opts)
			checkInvariants(t, spans)
			golden.Check(t, filepath.Join("testdata", tt.name+".golden"), golden.Render(golden.FromStubs(spans)), *update)
		})
	}
}

// realFixtures lists the shared real recordings, or skips when the shared
// folder is not beside the project (a fresh clone).
func realFixtures(t *testing.T) []string {
	t.Helper()
	paths, _ := filepath.Glob("../../shared/fixtures/real/*.ndjson")
	if len(paths) == 0 {
		t.Skip("../shared/fixtures/real not present")
	}
	return paths
}

func TestGoldenRealRecordings(t *testing.T) {
	for _, path := range realFixtures(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".ndjson")
		t.Run(name, func(t *testing.T) {
			spans := recordFile(t, path, Options{})
			checkInvariants(t, spans)
			golden.Check(t, filepath.Join("testdata", "real-"+name+".golden"), golden.Render(golden.FromStubs(spans)), *update)
		})
	}
}

// checkInvariants holds for every trace the model produces: session →
// model call → tool call, each child inside its parent's time, every span
// a GenAI operation named by it, or a wait on the person (no GenAI
// operation: no gen_ai.operation.name).
func checkInvariants(t *testing.T, spans tracetest.SpanStubs) {
	t.Helper()
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID()] = s
	}
	// session returns the session (root invoke_agent) above s.
	session := func(s tracetest.SpanStub) (tracetest.SpanStub, bool) {
		for i := 0; i < 16; i++ {
			parent, ok := byID[s.Parent.SpanID()]
			if !ok {
				return s, kindOf(s) == OpInvokeAgent
			}
			s = parent
		}
		return s, false
	}
	// A wait on the person is under the tool call it holds up, else the
	// model call under way, else the session.
	wantParent := map[string][]string{OpChat: {OpInvokeAgent}, OpExecuteTool: {OpChat}, OpInvokeAgent: {OpExecuteTool},
		OpRequestPermission: {OpExecuteTool, OpChat, OpInvokeAgent}}
	for _, s := range spans {
		op := kindOf(s)
		if op == "" {
			t.Errorf("span %q has no %s and is no wait", s.Name, OperationName)
		}
		checkOperation(t, s.Name, attr(s, OperationName), attr(s, ToolName))
		if s.EndTime.Before(s.StartTime) {
			t.Errorf("span %q ends before it starts", s.Name)
		}
		parent, ok := byID[s.Parent.SpanID()]
		if op == OpInvokeAgent && !ok {
			continue // a session
		}
		if !ok {
			t.Errorf("span %q has no parent in the trace", s.Name)
			continue
		}
		if got := kindOf(parent); !slices.Contains(wantParent[op], got) {
			t.Errorf("span %q (%s) is under a %s span, want %s", s.Name, op, got, wantParent[op])
		}
		if op == OpInvokeAgent && attr(parent, ToolName) != "task" {
			t.Errorf("subagent %q is under %q, not a task", s.Name, parent.Name)
		}
		// Parents cover their children; each session's spans lie within
		// its own time range.
		if s.StartTime.Before(parent.StartTime) || s.EndTime.After(parent.EndTime) {
			t.Errorf("%q [%v, %v] is outside its parent %q [%v, %v]", s.Name, s.StartTime, s.EndTime, parent.Name, parent.StartTime, parent.EndTime)
		}
		if root, ok := session(s); !ok {
			t.Errorf("%q is in no session", s.Name)
		} else if s.StartTime.Before(root.StartTime) || s.EndTime.After(root.EndTime) {
			t.Errorf("%q is outside its session", s.Name)
		}
	}
}

// kindOf is what a span is in the model: its GenAI operation, or
// OpRequestPermission for a wait on the person (which has none).
func kindOf(s tracetest.SpanStub) string {
	if op := attr(s, OperationName); op != "" {
		return op
	}
	if attr(s, Wait) == "true" {
		return OpRequestPermission
	}
	return ""
}

// genAIOperations are the values of gen_ai.operation.name the GenAI
// conventions define (semantic-conventions-genai, model/gen-ai/registry.yaml).
var genAIOperations = []string{"chat", "generate_content", "text_completion", "embeddings", "retrieval", "create_agent",
	"invoke_agent", "execute_tool", "invoke_workflow", "plan", "search_memory", "create_memory", "update_memory",
	"upsert_memory", "delete_memory", "create_memory_store", "delete_memory_store"}

// checkOperation: a span's gen_ai.operation.name, when it has one, is an
// operation the conventions define, never a JSON-RPC method; an
// execute_tool span names its tool.
func checkOperation(t testing.TB, name, op, tool string) {
	t.Helper()
	if op != "" && (strings.Contains(op, "/") || !slices.Contains(genAIOperations, op)) {
		t.Errorf("span %q: gen_ai.operation.name %q is no GenAI operation", name, op)
	}
	if op == OpExecuteTool && tool == "" {
		t.Errorf("span %q: execute_tool without gen_ai.tool.name", name)
	}
}

func attr(s tracetest.SpanStub, k attribute.Key) string {
	for _, a := range s.Attributes {
		if a.Key == k {
			return a.Value.String()
		}
	}
	return ""
}

func spansNamed(spans tracetest.SpanStubs, op string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans {
		if attr(s, OperationName) == op {
			out = append(out, s)
		}
	}
	return out
}

// parallel-sleep: two shell calls started together under one model call,
// `sleep 4` completing before `sleep 6` although it started second.
func TestRealParallelSleep(t *testing.T) {
	realFixtures(t)
	spans := recordFile(t, "../../shared/fixtures/real/parallel-sleep.ndjson", Options{})
	tools := spansNamed(spans, OpExecuteTool)
	if len(tools) != 2 {
		t.Fatalf("got %d tool spans, want 2", len(tools))
	}
	byCmd := map[string]tracetest.SpanStub{}
	for _, s := range tools {
		byCmd[attr(s, ToolCommand)] = s
	}
	six, four := byCmd["sleep 6"], byCmd["sleep 4"]
	if six.Name != "execute_tool shell" || four.Name != "execute_tool shell" {
		t.Fatalf("tool spans = %q and %q, want two execute_tool shell", six.Name, four.Name)
	}
	if six.Parent.SpanID() != four.Parent.SpanID() {
		t.Errorf("the two sleeps have different parents: they were issued by one model call")
	}
	if !(four.StartTime.Before(six.EndTime) && six.StartTime.Before(four.EndTime)) {
		t.Errorf("the sleeps do not overlap: 6 [%v, %v], 4 [%v, %v]", six.StartTime, six.EndTime, four.StartTime, four.EndTime)
	}
	if !four.EndTime.Before(six.EndTime) {
		t.Errorf("sleep 4 ends at %v, not before sleep 6 at %v", four.EndTime, six.EndTime)
	}
	if got, want := four.EndTime.Sub(four.StartTime), 4162*time.Millisecond; got != want {
		t.Errorf("sleep 4 lasted %v, want %v (from the stream's timestamps)", got, want)
	}
	if got := attr(four, ToolCallID); !strings.Contains(got, "\n") {
		t.Errorf("call id %q lost its newline", got)
	}
}

// direct-sleep has 210 thinking deltas: one event for the phase, not 210.
func TestRealThinkingIsOneEventPerPhase(t *testing.T) {
	realFixtures(t)
	spans := recordFile(t, "../../shared/fixtures/real/direct-sleep.ndjson", Options{})
	var events []sdktrace.Event
	for _, s := range spansNamed(spans, OpChat) {
		for _, e := range s.Events {
			if e.Name == EventThinking {
				events = append(events, e)
			}
		}
	}
	if len(events) != 1 {
		t.Fatalf("got %d thinking events, want 1", len(events))
	}
	var deltas, ms int64
	for _, a := range events[0].Attributes {
		switch a.Key {
		case ThinkingDeltas:
			deltas = a.Value.AsInt64()
		case ThinkingMs:
			ms = a.Value.AsInt64()
		}
	}
	if deltas != 210 || ms != 1770823845095-1770823841542 {
		t.Errorf("thinking event: %d deltas over %d ms, want 210 over %d ms", deltas, ms, 1770823845095-1770823841542)
	}
}

func TestTwoInitsMakeTwoTraces(t *testing.T) {
	spans := recordFile(t, "testdata/streams/two-sessions.ndjson", Options{})
	sessions := spansNamed(spans, OpInvokeAgent)
	if len(sessions) != 2 {
		t.Fatalf("got %d sessions, want 2", len(sessions))
	}
	if sessions[0].SpanContext.TraceID() == sessions[1].SpanContext.TraceID() {
		t.Errorf("both sessions are in trace %s", sessions[0].SpanContext.TraceID())
	}
	for _, s := range sessions {
		if s.Status.Code == codes.Error {
			t.Errorf("session %s: status %v %q, want unset: each ended with a result", attr(s, ConversationID), s.Status.Code, s.Status.Description)
		}
	}
}

func TestSessionHasNoInventedConversationID(t *testing.T) {
	spans := recordFile(t, "testdata/streams/payload.ndjson", Options{})
	for _, s := range spansNamed(spans, OpInvokeAgent) {
		if got := attr(s, ConversationID); got != "" {
			t.Errorf("conversation id %q, want none: the stream has no session_id", got)
		}
	}
}

func TestTraceparentBecomesTheSessionParent(t *testing.T) {
	parent := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled,
		Remote:     true,
	})
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(NewIDGenerator()), sdktrace.WithSyncer(exp))
	rec := NewStream(trace.ContextWithRemoteSpanContext(context.Background(), parent), tp.Tracer("test"), Options{})
	rec.Record(decodeLine([]byte(`{"type":"system","subtype":"init","session_id":"s"}`), 1), time.Now())
	rec.Finish(End{})
	s := exp.GetSpans()[0]
	if s.Parent.SpanID() != parent.SpanID() || s.SpanContext.TraceID() != parent.TraceID() {
		t.Errorf("session parent = %v in trace %v, want %v in %v", s.Parent.SpanID(), s.SpanContext.TraceID(), parent.SpanID(), parent.TraceID())
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Without content capture no prompt, text, thinking, arguments or results
// leave; with it every value stays under the limit and valid UTF-8.
func TestContentCapture(t *testing.T) {
	content := []attribute.Key{InputMessages, OutputMessages, ToolArguments, ToolResult, ThinkingText}
	paths, _ := filepath.Glob("../examples/*.ndjson")
	streams, _ := filepath.Glob("testdata/streams/*.ndjson")
	paths = append(paths, streams...)
	for _, path := range paths {
		for _, capture := range []bool{false, true} {
			spans := recordFile(t, path, Options{CaptureContent: capture, MaxContent: 64})
			seen := 0
			for _, s := range spans {
				for _, a := range append(s.Attributes, eventAttrs(s)...) {
					isContent := false
					for _, k := range content {
						isContent = isContent || a.Key == k
					}
					if !isContent {
						continue
					}
					seen++
					v := a.Value.AsString()
					if !capture && !isMetadataView(t, a) {
						t.Errorf("%s: %s recorded without content capture: %s", path, a.Key, v)
					}
					// A metadata view is bounded as the metadata it repeats
					// (maxMessage a fact), not as captured content.
					if limit := 64 + 32 + messageOverhead*boolInt(a.Key == InputMessages || a.Key == OutputMessages); capture && len(v) > limit {
						t.Errorf("%s: %s is %d bytes, over the limit", path, a.Key, len(v))
					}
					if !utf8.ValidString(v) {
						t.Errorf("%s: %s is not valid UTF-8", path, a.Key)
					}
				}
			}
			if capture && seen == 0 && !strings.Contains(path, "malformed") {
				t.Errorf("%s: content capture recorded nothing", path)
			}
		}
	}
}

// isMetadataView says a tool's arguments or result, without content
// capture, hold only the metadata exported anyway (toolview.go).
func isMetadataView(t *testing.T, a attribute.KeyValue) bool {
	facts := argumentFacts
	if a.Key == ToolResult {
		facts = resultFacts
	} else if a.Key != ToolArguments {
		return false
	}
	var view map[string]any
	if err := json.Unmarshal([]byte(a.Value.AsString()), &view); err != nil {
		t.Errorf("%s is not a JSON object: %v", a.Key, err)
		return false
	}
	for name := range view {
		if !slices.ContainsFunc(facts, func(f fact) bool { return f.name == name }) {
			return false
		}
	}
	return true
}

func eventAttrs(s tracetest.SpanStub) []attribute.KeyValue {
	var out []attribute.KeyValue
	for _, e := range s.Events {
		out = append(out, e.Attributes...)
	}
	return out
}

func TestRedactIsAppliedToRecordedText(t *testing.T) {
	stream := `{"type":"system","subtype":"init","session_id":"s","model":"Auto"}
{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"curl -H 'Authorization: Bearer hunter2' https://x"}}},"timestamp_ms":1770000000000}
{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"result":{"failure":{"exitCode":22,"stderr":"hunter2 rejected"}}}},"timestamp_ms":1770000001000}
{"type":"error","message":"token hunter2 expired","timestamp_ms":1770000002000}
{"type":"result","subtype":"error","is_error":true,"result":"auth failed for hunter2","timestamp_ms":1770000003000}`
	redact := func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED]") }
	spans := record(t, strings.NewReader(stream), Options{Redact: redact, CaptureContent: true})
	for _, s := range spans {
		all := append(append([]attribute.KeyValue{}, s.Attributes...), eventAttrs(s)...)
		for _, a := range all {
			if strings.Contains(a.Value.String(), "hunter2") {
				t.Errorf("%s: %s = %q leaks the secret", s.Name, a.Key, a.Value.String())
			}
		}
		if strings.Contains(s.Status.Description, "hunter2") {
			t.Errorf("%s: status %q leaks the secret", s.Name, s.Status.Description)
		}
	}
	tool := spansNamed(spans, OpExecuteTool)[0]
	if got := attr(tool, ToolCommand); got != "curl -H 'Authorization: Bearer [REDACTED]' https://x" {
		t.Errorf("command = %q, want the rest kept readable", got)
	}
}

// In replay the first lines carry no time; they take the first time the
// session shows, and the session starts no later than its result's
// duration_ms before its end. A stream with no time at all takes the
// replay's.
func TestTimesFromNeighbours(t *testing.T) {
	spans := recordFile(t, "../examples/fix-failing-test.ndjson", Options{})
	session := spansNamed(spans, OpInvokeAgent)[0]
	last := time.UnixMilli(1790000027600)
	if want := last.Add(-31200 * time.Millisecond); !session.StartTime.Equal(want) {
		t.Errorf("session starts %v, want %v (duration_ms before its last time)", session.StartTime, want)
	}
	if d := session.EndTime.Sub(last); d < 0 || d > time.Microsecond {
		t.Errorf("session ends %v, want %v (the last timestamp)", session.EndTime, last)
	}

	untimed := recordFile(t, "testdata/streams/untimed.ndjson", Options{})
	for _, s := range spansNamed(untimed, OpExecuteTool) {
		if !s.StartTime.Equal(replayTime) {
			t.Errorf("%s starts %v, want the replay time %v", s.Name, s.StartTime, replayTime)
		}
	}
	if s := spansNamed(untimed, OpInvokeAgent)[0]; !s.StartTime.Equal(replayTime.Add(-5234 * time.Millisecond)) {
		t.Errorf("session starts %v, want its duration_ms, 5234 ms, before the replay time", s.StartTime)
	}
}

// Each session keeps its own clock, a tool span is exactly its startedAtMs
// to its completedAtMs, a session lasts what its result says, and an error
// result invents no model call: the cases real streams showed wrong.
func TestRealStreamTimes(t *testing.T) {
	ms := func(v int64) time.Time { return time.UnixMilli(v) }
	for _, tt := range []struct {
		name  string
		path  string
		check func(t *testing.T, spans tracetest.SpanStubs)
	}{
		{"a second session keeps its own clock, though its times are earlier", "testdata/streams/concatenated.ndjson", func(t *testing.T, spans tracetest.SpanStubs) {
			sessions := spansNamed(spans, OpInvokeAgent)
			if len(sessions) != 2 {
				t.Fatalf("%d sessions, want 2", len(sessions))
			}
			for _, s := range sessions {
				want := map[string]time.Duration{"run-1": 6795 * time.Millisecond, "run-2": 2880 * time.Millisecond}[attr(s, ConversationID)]
				if d := s.EndTime.Sub(s.StartTime).Truncate(time.Millisecond); d != want {
					t.Errorf("session %s lasted %v, want %v (its duration_ms)", attr(s, ConversationID), d, want)
				}
			}
			for _, tool := range spansNamed(spans, OpExecuteTool) {
				if d := tool.EndTime.Sub(tool.StartTime); d != 2133*time.Millisecond && d != 1390*time.Millisecond {
					t.Errorf("%s lasted %v, want its completedAtMs - startedAtMs", attr(tool, ToolCommand), d)
				}
			}
		}},
		{"a tool that starts before its model call's first output is not cut", "testdata/streams/concatenated.ndjson", func(t *testing.T, spans tracetest.SpanStubs) {
			for _, tool := range spansNamed(spans, OpExecuteTool) {
				if attr(tool, ToolCommand) != "go test ./..." {
					continue
				}
				if !tool.StartTime.Equal(ms(1790000100000-45)) || !tool.EndTime.Equal(ms(1790000100000-45+2133)) {
					t.Errorf("tool [%v, %v], want [startedAtMs, completedAtMs] exactly", tool.StartTime, tool.EndTime)
				}
			}
		}},
		{"two turns of a resumed chat: the pause between them is in neither", "testdata/streams/resumed-chat.ndjson", func(t *testing.T, spans tracetest.SpanStubs) {
			sessions := spansNamed(spans, OpInvokeAgent)
			if len(sessions) != 2 {
				t.Fatalf("%d sessions, want 2", len(sessions))
			}
			for _, s := range sessions {
				if d := s.EndTime.Sub(s.StartTime); d > 3*time.Second {
					t.Errorf("a turn lasted %v: the pause between turns is not a turn's", d)
				}
			}
			for _, c := range spansNamed(spans, OpChat) {
				if v, ok := attrInt(c, FirstTokenMs); ok && v > 3000 {
					t.Errorf("%s: time to first token %d ms", c.Name, v)
				}
			}
		}},
		{"an error result invents no failed model call", "testdata/streams/error-result.ndjson", func(t *testing.T, spans tracetest.SpanStubs) {
			chats := spansNamed(spans, OpChat)
			if len(chats) != 1 || chats[0].Status.Code == codes.Error {
				t.Errorf("%d model calls (%v); want the one that ran the build, not failed", len(chats), chats)
			}
			if s := spansNamed(spans, OpInvokeAgent)[0]; s.Status.Code != codes.Error || s.Status.Description != "boom" {
				t.Errorf("session %v %q, want ERROR boom", s.Status.Code, s.Status.Description)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spans := recordFile(t, tt.path, Options{})
			checkInvariants(t, spans)
			tt.check(t, spans)
		})
	}
}

// attrInt is an int attribute of s, and whether s has it.
func attrInt(s tracetest.SpanStub, k attribute.Key) (int64, bool) {
	for _, a := range s.Attributes {
		if a.Key == k {
			return a.Value.AsInt64(), true
		}
	}
	return 0, false
}

// Read live, an event without a time of its own is placed when it was read.
func TestLiveReadTimes(t *testing.T) {
	rec, exp := newTestRecorder(Options{})
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	rec.Begin(trace.SpanContext{}, t0)
	lines := []string{
		`{"type":"system","subtype":"init","session_id":"s","model":"Auto"}`,
		`{"type":"user","message":{"content":"go"},"session_id":"s"}`,
		`{"type":"assistant","message":{"content":"ok"},"session_id":"s"}`,
		`{"type":"result","subtype":"success","result":"ok","session_id":"s"}`,
	}
	for i, l := range lines {
		rec.Record(decodeLine([]byte(l), i+1), t0.Add(time.Duration(i+1)*time.Second))
	}
	exit := 0
	rec.Finish(End{Time: t0.Add(5 * time.Second), ExitCode: &exit})
	spans := exp.GetSpans()
	session := spansNamed(spans, OpInvokeAgent)[0]
	chat := spansNamed(spans, OpChat)[0]
	if !session.StartTime.Equal(t0) || !session.EndTime.Equal(t0.Add(5*time.Second)) {
		t.Errorf("session [%v, %v], want [%v, %v]: from the start of the agent to its exit", session.StartTime, session.EndTime, t0, t0.Add(5*time.Second))
	}
	if !chat.StartTime.Equal(t0.Add(2*time.Second)) || !chat.EndTime.Equal(t0.Add(3*time.Second)) {
		t.Errorf("model call [%v, %v], want [+2s, +3s]: from the prompt to the answer", chat.StartTime.Sub(t0), chat.EndTime.Sub(t0))
	}
	if got := attr(session, ExitCode); got != "0" {
		t.Errorf("%s = %q, want 0", ExitCode, got)
	}
}

// Live, the agent's clock may be off from cursor-otel's: seconds either
// way, or an odd time from nowhere. Whatever it is, no duration is
// negative, nothing is outside its parent or its session, no figure is
// longer than the session, and the stream's own durations stay as they
// were (a tool's completedAtMs - startedAtMs, a thinking phase).
func TestLiveClockSkew(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for _, skew := range []time.Duration{-5 * time.Second, 5 * time.Second, -3 * 365 * 24 * time.Hour, 0} {
		t.Run(skew.String(), func(t *testing.T) {
			rec, exp := newTestRecorder(Options{})
			rec.Begin(trace.SpanContext{}, t0)
			agent := func(d time.Duration) int64 { return t0.Add(d + skew).UnixMilli() }
			lines := []struct {
				read time.Duration // after t0
				line string
			}{
				{500 * time.Millisecond, `{"type":"system","subtype":"init","session_id":"s","model":"Auto"}`},
				{time.Second, fmt.Sprintf(`{"type":"thinking","subtype":"delta","text":"a","session_id":"s","timestamp_ms":%d}`, agent(990*time.Millisecond))},
				{2 * time.Second, fmt.Sprintf(`{"type":"thinking","subtype":"completed","session_id":"s","timestamp_ms":%d}`, agent(1990*time.Millisecond))},
				{2100 * time.Millisecond, fmt.Sprintf(`{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"make"}},"startedAtMs":"%d"},"model_call_id":"m","session_id":"s","timestamp_ms":%d}`, agent(2050*time.Millisecond), agent(2090*time.Millisecond))},
				{3200 * time.Millisecond, fmt.Sprintf(`{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"make"},"result":{"success":{"exitCode":0}}},"startedAtMs":"%d","completedAtMs":"%d"},"model_call_id":"m","session_id":"s","timestamp_ms":%d}`, agent(2050*time.Millisecond), agent(3150*time.Millisecond), agent(3190*time.Millisecond))},
				{3300 * time.Millisecond, `{"type":"assistant","message":{"content":"done"},"session_id":"s"}`},
				{3400 * time.Millisecond, `{"type":"result","subtype":"success","result":"done","session_id":"s","duration_ms":3000}`},
			}
			for i, l := range lines {
				rec.Record(decodeLine([]byte(l.line), i+1), t0.Add(l.read))
			}
			rec.Finish(End{Time: t0.Add(3500 * time.Millisecond)})
			spans := exp.GetSpans()
			checkInvariants(t, spans)
			session := spansNamed(spans, OpInvokeAgent)[0]
			if !session.StartTime.Equal(t0) || !session.EndTime.Equal(t0.Add(3500*time.Millisecond)) {
				t.Errorf("session [%v, %v]: want the agent's start to its exit", session.StartTime.Sub(t0), session.EndTime.Sub(t0))
			}
			tool := spansNamed(spans, OpExecuteTool)[0]
			if d := tool.EndTime.Sub(tool.StartTime); d != 1100*time.Millisecond {
				t.Errorf("the tool lasted %v, want its own 1.1s", d)
			}
			for _, c := range spansNamed(spans, OpChat) {
				if v, ok := attrInt(c, FirstTokenMs); ok && (v < 0 || v > 3500) {
					t.Errorf("%s: time to first token %d ms", c.Name, v)
				}
				for _, e := range c.Events {
					for _, a := range e.Attributes {
						if a.Key == ThinkingMs && (a.Value.AsInt64() < 0 || a.Value.AsInt64() > 3500) {
							t.Errorf("a thinking phase of %d ms", a.Value.AsInt64())
						}
					}
				}
			}
		})
	}
}

func TestFinishStatus(t *testing.T) {
	ok := `{"type":"system","subtype":"init","session_id":"s"}
{"type":"result","subtype":"success","result":"done","timestamp_ms":1770000000000}`
	failed := `{"type":"system","subtype":"init","session_id":"s"}
{"type":"result","subtype":"error","is_error":true,"error":"Request timed out","timestamp_ms":1770000000000}`
	truncated := `{"type":"system","subtype":"init","session_id":"s","timestamp_ms":1770000000000}`
	zero, one := 0, 1
	tests := []struct {
		name     string
		stream   string
		end      End
		wantErr  bool
		wantType string
		wantMsg  string
	}{
		{"success", ok, End{ExitCode: &zero}, false, "", ""},
		{"result error", failed, End{}, true, "agent_error", "Request timed out"},
		{"no result", truncated, End{}, true, "incomplete", "stream ended without a result"},
		{"non-zero exit", ok, End{ExitCode: &one}, true, "exit_status", "agent exited with status 1"},
		{"interrupted", truncated, End{Signals: []Signal{{Name: "SIGINT"}}, ExitCode: &one}, true, "interrupted", "interrupted; stream ended without a result; agent exited with status 1"},
		{"interrupted, and it handled it and ended well", ok, End{Signals: []Signal{{Name: "SIGINT"}}, ExitCode: &zero}, false, "", ""},
		{"output not traced, no result seen, exit 0", truncated, End{UntracedBytes: 20 << 20, ExitCode: &zero}, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, exp := newTestRecorder(Options{})
			dec := parse.NewDecoder(strings.NewReader(tt.stream))
			for ev, err := dec.Next(); err == nil; ev, err = dec.Next() {
				rec.Record(ev, time.Time{})
			}
			rec.Finish(tt.end)
			s := exp.GetSpans()[0]
			if (s.Status.Code == codes.Error) != tt.wantErr || s.Status.Description != tt.wantMsg {
				t.Errorf("status = %v %q, want error=%v %q", s.Status.Code, s.Status.Description, tt.wantErr, tt.wantMsg)
			}
			if got := attr(s, ErrorType); got != tt.wantType {
				t.Errorf("error.type = %q, want %q", got, tt.wantType)
			}
		})
	}
}

// A run whose output was not read (an interactive run, a subcommand) is a
// session span alone; it fails only by its exit status, and only a failed
// run keeps its stderr tail.
func TestFinishWithoutStream(t *testing.T) {
	zero, two := 0, 2
	for _, tt := range []struct {
		name     string
		exit     *int
		wantErr  bool
		wantTail bool
	}{
		{"exit 0", &zero, false, false},
		{"exit 2", &two, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec, exp := newTestRecorder(Options{})
			t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
			rec.Begin(trace.SpanContext{}, t0)
			rec.Finish(End{Time: t0.Add(time.Second), ExitCode: tt.exit, NoStream: true, StderrTail: "Error: not logged in"})
			spans := exp.GetSpans()
			if len(spans) != 1 {
				t.Fatalf("%d spans, want the session alone", len(spans))
			}
			s := spans[0]
			if (s.Status.Code == codes.Error) != tt.wantErr {
				t.Errorf("status %v %q, want error=%v", s.Status.Code, s.Status.Description, tt.wantErr)
			}
			if got := attr(s, StderrTail); (got != "") != tt.wantTail {
				t.Errorf("%s = %q, want it only on a failed run", StderrTail, got)
			}
		})
	}
}

// A session's state is its open spans: after thousands of model calls,
// only the open ones are remembered. A late event naming an ended model
// call gets a model call of its own, which covers it.
func TestLongSessionStateIsBounded(t *testing.T) {
	rec, exp := newTestRecorder(Options{})
	line := 0
	record := func(format string, args ...any) {
		line++
		rec.Record(decodeLine(fmt.Appendf(nil, format, args...), line), time.Time{})
	}
	record(`{"type":"system","subtype":"init","session_id":"s"}`)
	const calls = 3072
	ts := int64(1790000000000)
	for i := range calls {
		ts += 10
		record(`{"type":"tool_call","subtype":"started","call_id":"c%d","tool_call":{"lsToolCall":{"args":{}}},"model_call_id":"m%d","timestamp_ms":%d}`, i, i, ts)
		record(`{"type":"tool_call","subtype":"completed","call_id":"c%d","tool_call":{"lsToolCall":{"result":{"success":{}}}},"model_call_id":"m%d","timestamp_ms":%d}`, i, i, ts+1)
	}
	if got := len(rec.sess.calls); got > 1 || len(rec.sess.open) > 1 {
		t.Errorf("%d model calls remembered, %d open, after %d: want the one under way", got, len(rec.sess.open), calls)
	}
	late := calls - 2 // ended
	record(`{"type":"tool_call","subtype":"completed","call_id":"late","tool_call":{"lsToolCall":{"result":{"success":{}}}},"model_call_id":"m%d","timestamp_ms":%d}`, late, ts+2)
	rec.Finish(End{})

	spans := exp.GetSpans()
	if want := 1 + 2*calls + 2; len(spans) != want {
		t.Fatalf("%d spans, want %d", len(spans), want)
	}
	checkInvariants(t, spans)
}

// Output the tracer fell behind on and never read is said on the session,
// in bytes; a run that lost none says nothing of it.
func TestFinishCountsUntracedOutput(t *testing.T) {
	for _, untraced := range []int64{0, 123456} {
		rec, exp := newTestRecorder(Options{})
		t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
		rec.Begin(trace.SpanContext{}, t0)
		rec.Record(decodeLine([]byte(`{"type":"system","subtype":"init","session_id":"s"}`), 1), t0)
		rec.Finish(End{Time: t0.Add(time.Second), UntracedBytes: untraced})
		want := ""
		if untraced > 0 {
			want = "123456"
		}
		if got := attr(exp.GetSpans()[0], UntracedBytes); got != want {
			t.Errorf("untraced %d: %s = %q, want %q", untraced, UntracedBytes, got, want)
		}
	}
}

// A stream time earlier than the session's start (clock skew, a clock set
// back) does not put a model call before its session.
func TestNothingStartsBeforeTheSession(t *testing.T) {
	rec, exp := newTestRecorder(Options{})
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	rec.Begin(trace.SpanContext{}, t0)
	rec.Record(decodeLine([]byte(`{"type":"assistant","message":{"content":"hi"},"model_call_id":"m","timestamp_ms":1758000000000}`), 1), t0.Add(time.Second))
	rec.Record(decodeLine([]byte(`{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"lsToolCall":{"args":{}}},"model_call_id":"m","timestamp_ms":1758000000100}`), 2), t0.Add(time.Second))
	rec.Record(decodeLine([]byte(`{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"lsToolCall":{"result":{"success":{}}}},"model_call_id":"m","timestamp_ms":1758000000200}`), 3), t0.Add(time.Second))
	rec.Finish(End{Time: t0.Add(2 * time.Second)})
	spans := exp.GetSpans()
	checkInvariants(t, spans)
	for _, s := range spans {
		if s.StartTime.Before(t0) {
			t.Errorf("%s starts %v before its session", s.Name, t0.Sub(s.StartTime))
		}
	}
}

// decodeLine is one line of the stream (without its line ending) as the
// stream's Decoder gives it, numbered num.
func decodeLine(line []byte, num int) parse.Event {
	ev, err := parse.NewDecoder(bytes.NewReader(line), parse.WithBlankLines()).Next()
	if err != nil {
		panic(fmt.Sprintf("decode %q: %v", line, err))
	}
	ev.Head().Line = num
	return ev
}
