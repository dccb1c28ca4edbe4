package spanmap

import (
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A stream's wait on the person is a span of its own, under what it holds
// up while that is open, answered in one word, or ERROR incomplete when
// no answer came.
func TestStreamWaits(t *testing.T) {
	const head = `{"type":"system","subtype":"init","session_id":"s","model":"m"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"On it."}]},"session_id":"s","model_call_id":"m-0","timestamp_ms":1790000000000}
{"type":"tool_call","subtype":"started","call_id":"e1","tool_call":{"editToolCall":{"args":{"path":"/a.go"}}},"model_call_id":"m-0","session_id":"s","timestamp_ms":1790000000010}
{"type":"tool_call","subtype":"started","call_id":"sh1","tool_call":{"shellToolCall":{"args":{"command":"make"}}},"model_call_id":"m-0","session_id":"s","timestamp_ms":1790000000020}
`
	ask := func(id, query string, ms int) string {
		return `{"type":"interaction_query","subtype":"request","id":` + id + `,"query":` + query + `,"session_id":"s","timestamp_ms":17900000` + fmt.Sprintf("%05d", ms) + "}\n"
	}
	answer := func(id, response string, ms int) string {
		return `{"type":"interaction_query","subtype":"response","id":` + id + `,"response":` + response + `,"session_id":"s","timestamp_ms":17900000` + fmt.Sprintf("%05d", ms) + "}\n"
	}
	complete := func(id, call string, ms int) string {
		return `{"type":"tool_call","subtype":"completed","call_id":"` + id + `","tool_call":` + call + `,"model_call_id":"m-0","session_id":"s","timestamp_ms":17900000` + fmt.Sprintf("%05d", ms) + "}\n"
	}
	const result = `{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s","timestamp_ms":1790000009000}` + "\n"
	edit := `{"editToolCall":{"args":{"path":"/a.go"},"result":{"success":{}}}}`
	shell := `{"shellToolCall":{"args":{"command":"make"},"result":{"success":{"exitCode":0}}}}`
	tests := []struct {
		name, stream string
		want         string // the wait: kind, parent, outcome or status
	}{
		{"an edit's approval, under the edit",
			head + ask("1", `{"editRequestQuery":{"path":"/a.go"}}`, 100) + answer("1", `{"editRequestResponse":{"approved":{}}}`, 200) + complete("e1", edit, 300) + complete("sh1", shell, 300) + result,
			"client under execute_tool edit: approved Unset"},
		{"a command's refusal, under the shell call (two tools running)",
			head + ask("2", `{"shellRequestQuery":{"command":"make"}}`, 100) + answer("2", `{"shellRequestResponse":{"denied":{}}}`, 200) + complete("e1", edit, 300) + complete("sh1", shell, 300) + result,
			"client under execute_tool shell: rejected Unset"},
		{"a question naming no running tool, under the model call",
			head + ask("3", `{"webSearchRequestQuery":{"query":"x"}}`, 100) + answer("3", `{"webSearchRequestResponse":{"accepted":{}}}`, 200) + complete("e1", edit, 300) + complete("sh1", shell, 300) + result,
			"client under chat m: approved Unset"},
		{"the tool done before the answer: under the model call, which covers it",
			head + ask("4", `{"editRequestQuery":{"path":"/a.go"}}`, 100) + complete("e1", edit, 150) + answer("4", `{"editRequestResponse":{"rejected":{}}}`, 200) + complete("sh1", shell, 300) + result,
			"client under chat m: rejected Unset"},
		{"never answered: incomplete",
			head + ask("5", `{"editRequestQuery":{"path":"/a.go"}}`, 100),
			"client under execute_tool edit:  Error incomplete"},
		{"an answer to a question not seen",
			head + answer("6", `{"editRequestResponse":{"approved":{}}}`, 200) + complete("e1", edit, 300) + complete("sh1", shell, 300) + result,
			"client under chat m: approved Unset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, exp := newTestRecorder(Options{})
			recordString(rec, tt.stream)
			rec.Finish(End{})
			spans := tracetest.SpanStubs(exp.GetSpans())
			checkInvariants(t, spans)
			var waits tracetest.SpanStubs
			for _, s := range spans {
				if kindOf(s) == OpRequestPermission {
					waits = append(waits, s)
				}
			}
			if len(waits) != 1 {
				t.Fatalf("%d waits, want 1", len(waits))
			}
			w := waits[0]
			var parent string
			for _, s := range spans {
				if s.SpanContext.SpanID() == w.Parent.SpanID() {
					parent = s.Name
				}
			}
			got := strings.ToLower(w.SpanKind.String()) + " under " + parent + ": " + attr(w, InteractionOutcome) + " " + w.Status.Code.String()
			if w.Status.Code == codes.Error {
				got += " " + attr(w, ErrorType)
			}
			if got != tt.want || attr(w, Wait) != "true" {
				t.Errorf("the wait: %q (cursor.wait=%s), want %q", got, attr(w, Wait), tt.want)
			}
		})
	}
}

// The answer is named one way, whoever told it.
func TestWaitOutcome(t *testing.T) {
	for _, tt := range []struct{ outcome, kind, want string }{
		{"selected", "allow_once", "approved"},
		{"selected", "allow_always", "approved"},
		{"selected", "reject_once", "rejected"},
		{"selected", "", "selected"},
		{"cancelled", "", "cancelled"},
	} {
		if got := waitOutcome(permissionOutcome(tt.outcome, tt.kind)); got != tt.want {
			t.Errorf("ACP %s %s: %q, want %q", tt.outcome, tt.kind, got, tt.want)
		}
	}
	for word, want := range map[string]string{"approved": "approved", "accepted": "approved", "allowed": "approved",
		"rejected": "rejected", "denied": "rejected", "canceled": "cancelled", "timeout": "timeout"} {
		if got := waitOutcome(word); got != want {
			t.Errorf("stream %s: %q, want %q", word, got, want)
		}
	}
}
