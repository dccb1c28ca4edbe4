package spanmap

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// acpSpans are a script's spans by name.
func acpSpans(spans []sdktrace.ReadOnlySpan) map[string][]sdktrace.ReadOnlySpan {
	byName := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byName[s.Name()] = append(byName[s.Name()], s)
	}
	return byName
}

// rootsByPrompt are the turns' roots in the order their prompts came.
func rootsByPrompt(spans []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	var roots []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if strings.HasPrefix(s.Name(), "invoke_agent ") && !s.Parent().IsValid() {
			roots = append(roots, s)
		}
	}
	for i := range roots {
		for j := i + 1; j < len(roots); j++ {
			if roots[j].StartTime().Before(roots[i].StartTime()) {
				roots[i], roots[j] = roots[j], roots[i]
			}
		}
	}
	return roots
}

// turnSays is what a user reads off a turn's root: its finish reason,
// status and how long it lasted, in the script's milliseconds.
func turnSays(s sdktrace.ReadOnlySpan) string {
	return fmt.Sprintf("%s %s %dms", spanAttr(s, "gen_ai.response.finish_reasons"), s.Status().Code, s.EndTime().Sub(s.StartTime()).Milliseconds())
}

const (
	acpPrompt1 = `>{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"a","prompt":[{"type":"text","text":"one"}]}}`
	acpPrompt2 = `>{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"a","prompt":[{"type":"text","text":"two"}]}}`
	acpChunk   = `<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"ok"}}}}`
)

// TestACPTurnsAsPeopleMakeThem: the contract's "turns as people make
// them", each as the SDK's agent and client put it on the wire.
func TestACPTurnsAsPeopleMakeThem(t *testing.T) {
	for _, tt := range []struct {
		name  string
		lines []string
		want  []string // each turn's root, by turnSays, in prompt order
	}{
		{"cancel, then the next prompt before the cancelled answer", []string{
			acpPrompt1,
			`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"t1","kind":"execute","status":"in_progress"}}}`,
			`>{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"a"}}`,
			acpPrompt2,
			`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"failed"}}}`,
			`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"cancelled"}}`,
			acpChunk,
			`<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`,
		}, []string{`["cancelled"] Unset 5ms`, `["end_turn"] Unset 4ms`}},
		{"a second prompt before the first's answer", []string{
			acpPrompt1, acpPrompt2, acpChunk,
			`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
			acpChunk,
			`<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"max_tokens"}}`,
		}, []string{`["end_turn"] Unset 3ms`, `["max_tokens"] Unset 4ms`}},
		{"answers in the other order", []string{
			acpPrompt1, acpPrompt2,
			`<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`,
			`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"refusal"}}`,
		}, []string{`["refusal"] Unset 3ms`, `["end_turn"] Unset 1ms`}},
		{"an agent working two prompts at once", []string{
			acpPrompt1, acpPrompt2,
			`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"t1","kind":"read","status":"in_progress"}}}`,
			`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
			`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"t2","kind":"edit","status":"in_progress"}}}`,
		}, []string{`["end_turn"] Unset 3ms`, ` Error 4ms`}},
		{"an id of 2.0 answered 2", []string{
			`>{"jsonrpc":"2.0","id":2.0,"method":"session/prompt","params":{"sessionId":"a","prompt":[]}}`,
			acpChunk,
			`<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`,
			acpChunk, acpChunk,
		}, []string{`["end_turn"] Unset 2ms`}},
		{"an id of \"2\" is not answered by 2", []string{
			`>{"jsonrpc":"2.0","id":"2","method":"session/prompt","params":{"sessionId":"a","prompt":[]}}`,
			`<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`,
		}, []string{` Error 2ms`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			roots := rootsByPrompt(acpScript(t, tt.lines...))
			var got []string
			for _, r := range roots {
				got = append(got, turnSays(r))
			}
			if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
				t.Errorf("turns:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestACPToolKindFromALaterUpdate: a tool call announced without its kind
// is named by the kind a later update gives.
func TestACPToolKindFromALaterUpdate(t *testing.T) {
	by := acpSpans(acpScript(t, acpPrompt1,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Terminal","status":"pending"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","kind":"execute","status":"in_progress"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"t2","status":"pending"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
	))
	if s := by["execute_tool shell"]; len(s) != 1 || spanAttr(s[0], "gen_ai.tool.name") != "shell" || spanAttr(s[0], "cursor.tool.kind") != "execute" {
		t.Errorf("the tool whose kind came later: %v", names(by))
	}
	if s := by["execute_tool other"]; len(s) != 1 || spanAttr(s[0], "gen_ai.tool.call.id") != "t2" {
		t.Errorf("the tool never given a kind: %v", names(by))
	}
}

func names(by map[string][]sdktrace.ReadOnlySpan) map[string]int {
	n := map[string]int{}
	for k, v := range by {
		n[k] = len(v)
	}
	return n
}

// TestACPEditorWorkUnderTheToolOfItsFile: with two tools in flight, the
// agent's requests for a file go under the tool whose locations name it.
func TestACPEditorWorkUnderTheToolOfItsFile(t *testing.T) {
	by := acpSpans(acpScript(t, acpPrompt1,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"ta","kind":"read","status":"in_progress","locations":[{"path":"/w/a.go"}]}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"tb","kind":"edit","status":"in_progress","locations":[{"path":"/w/b.go","line":3}]}}}`,
		`<{"jsonrpc":"2.0","id":"r1","method":"fs/read_text_file","params":{"sessionId":"a","path":"/w/a.go"}}`,
		`<{"jsonrpc":"2.0","id":"r2","method":"fs/write_text_file","params":{"sessionId":"a","path":"/w/b.go","content":"x"}}`,
		`>{"jsonrpc":"2.0","id":"r1","result":{"content":"package a"}}`,
		`>{"jsonrpc":"2.0","id":"r2","result":null}`,
		`<{"jsonrpc":"2.0","id":"r3","method":"fs/read_text_file","params":{"sessionId":"a","path":"/w/c.go"}}`,
		`>{"jsonrpc":"2.0","id":"r3","result":{"content":""}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
	))
	parentOf := map[string]string{}
	for _, s := range append(by["fs/read_text_file"], by["fs/write_text_file"]...) {
		for name, tools := range by {
			if len(tools) == 1 && tools[0].SpanContext().SpanID() == s.Parent().SpanID() {
				parentOf[spanAttr(s, "cursor.tool.path")] = name
			}
		}
	}
	want := map[string]string{"/w/a.go": "execute_tool read", "/w/b.go": "execute_tool edit", "/w/c.go": "execute_tool edit"}
	if fmt.Sprint(parentOf) != fmt.Sprint(want) {
		t.Errorf("editor work's parents by path: got %v, want %v", parentOf, want)
	}
}

// TestACPCapturedAnswerTruncationCounts: a long streamed answer, captured,
// is cut with a marker counting the bytes really dropped.
func TestACPCapturedAnswerTruncationCounts(t *testing.T) {
	const total, chunk = 168_890, 1_000
	lines := []string{acpPrompt1}
	for sent := 0; sent < total; sent += chunk {
		n := min(chunk, total-sent)
		lines = append(lines, `<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`+strings.Repeat("x", n)+`"}}}}`)
	}
	lines = append(lines, `<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`)
	roots := rootsByPrompt(acpScriptWith(t, Options{CaptureContent: true, MaxContent: DefaultMaxContent}, lines...))
	out := spanAttr(roots[0], "gen_ai.output.messages")
	kept := strings.Count(out, "x") - strings.Count(out, "text")
	i := strings.Index(out, "…[")
	j := strings.Index(out, " bytes truncated]")
	if i < 0 || j < i {
		t.Fatalf("no truncation marker in %d bytes of output", len(out))
	}
	dropped, _ := strconv.Atoi(out[i+len("…[") : j])
	if kept+dropped != total || kept > DefaultMaxContent {
		t.Errorf("kept %d bytes and says %d were truncated, of %d", kept, dropped, total)
	}
}

// memTurns is a conversation's last turn, as the hooks' state directory
// keeps it across processes.
type memTurns map[string]trace.SpanContext

func (m memTurns) Last(c string) (trace.SpanContext, bool)  { sc, ok := m[c]; return sc, ok }
func (m memTurns) SetLast(c string, root trace.SpanContext) { m[c] = root }

// TestACPTurnsLinkAcrossAgentProcesses: an editor that restarts the agent
// and loads the session continues the chain of turns.
func TestACPTurnsLinkAcrossAgentProcesses(t *testing.T) {
	turns := memTurns{}
	first := rootsByPrompt(acpScriptWith(t, Options{Turns: turns}, acpPrompt1, `<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`))
	second := rootsByPrompt(acpScriptWith(t, Options{Turns: turns},
		`>{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"a","cwd":"/w","mcpServers":[]}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"one"}}}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{}}`,
		acpPrompt2, `<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`))
	if len(first) != 1 || len(second) != 1 {
		t.Fatalf("want a turn in each process: %d, %d", len(first), len(second))
	}
	if l := second[0].Links(); len(l) != 1 || l[0].SpanContext.SpanID() != first[0].SpanContext().SpanID() {
		t.Errorf("the turn after the restart links to %v, want the turn before it (%v)", l, first[0].SpanContext().SpanID())
	}
	if turns["a"].SpanID() != second[0].SpanContext().SpanID() {
		t.Errorf("the session's last turn is not the latest")
	}
}
