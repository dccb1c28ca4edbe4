package parse

import (
	"fmt"
	"reflect"
	"testing"
)

// decodeSession decodes a session's lines: ">" the editor's, "<" the agent's.
func decodeSession(t *testing.T, lines ...string) []ACPEvent {
	t.Helper()
	d := NewACPDecoder()
	var events []ACPEvent
	for _, l := range lines {
		if e, ok := d.Decode(l[0] == '>', []byte(l[1:])); ok {
			events = append(events, e)
		}
	}
	return events
}

// TestACPDecoderParams: each request's and notification's params are
// decoded by its method into the fields the trace reads.
func TestACPDecoderParams(t *testing.T) {
	for _, tt := range []struct {
		name, line string
		check      func(t *testing.T, e ACPEvent)
	}{
		{"initialize", `>{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"zed","version":"0.200"}}}`, func(t *testing.T, e ACPEvent) {
			r := e.(*ACPRequest)
			if !r.FromEditor || r.Initialize.ClientInfo == nil || r.Initialize.ClientInfo.Name != "zed" || r.Initialize.Version() != "1" {
				t.Errorf("initialize: %+v", r.Initialize)
			}
		}},
		{"session/prompt", `>{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}],"_meta":{"traceparent":"00-x"}}}`, func(t *testing.T, e ACPEvent) {
			r := e.(*ACPRequest)
			if r.Method != "session/prompt" || r.ID != "1" || r.Prompt.SessionID != "s" || len(r.Prompt.Prompt) != 1 || r.Prompt.Prompt[0].Text != "hi" || r.Prompt.Meta.Traceparent != "00-x" || r.Ref.SessionID != "s" {
				t.Errorf("prompt: %+v", r)
			}
		}},
		{"session/set_model", `>{"jsonrpc":"2.0","id":2,"method":"session/set_model","params":{"sessionId":"s","modelId":"gpt-5"}}`, func(t *testing.T, e ACPEvent) {
			if r := e.(*ACPRequest); r.Ref.ModelID != "gpt-5" {
				t.Errorf("set_model: %+v", r.Ref)
			}
		}},
		{"request_permission", `<{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t1","kind":"edit"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"}]}}`, func(t *testing.T, e ACPEvent) {
			r := e.(*ACPRequest)
			if r.FromEditor || r.Ref.ToolCall == nil || r.Ref.ToolCall.ToolCallID != "t1" || len(r.Ref.Options) != 1 || r.Ref.Options[0].Kind != "allow_once" || len(r.Params) == 0 {
				t.Errorf("request_permission: %+v", r.Ref)
			}
		}},
		{"cursor/task", `<{"jsonrpc":"2.0","id":4,"method":"cursor/task","params":{"toolCallId":"t2","subagentType":"explore","model":"fast"}}`, func(t *testing.T, e ACPEvent) {
			if r := e.(*ACPRequest); r.Ref.ToolCallID != "t2" || r.Ref.SubagentType != "explore" || r.Ref.Model != "fast" {
				t.Errorf("task: %+v", r.Ref)
			}
		}},
		{"cursor/update_todos", `<{"jsonrpc":"2.0","id":5,"method":"cursor/update_todos","params":{"toolCallId":"t3","todos":[{"id":"1","content":"a","status":"pending"}]}}`, func(t *testing.T, e ACPEvent) {
			if r := e.(*ACPRequest); len(r.Ref.Todos) != 1 || r.Ref.Todos[0].Status != "pending" {
				t.Errorf("todos: %+v", r.Ref)
			}
		}},
		{"fs/read_text_file", `<{"jsonrpc":"2.0","id":6,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/w/a.go"}}`, func(t *testing.T, e ACPEvent) {
			if r := e.(*ACPRequest); r.Ref.Path != "/w/a.go" || r.Ref.SessionID != "s" {
				t.Errorf("read: %+v", r.Ref)
			}
		}},
		{"session/cancel", `>{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`, func(t *testing.T, e ACPEvent) {
			if n := e.(*ACPNotification); n.Ref.SessionID != "s" || n.Update != nil {
				t.Errorf("cancel: %+v", n)
			}
		}},
		{"agent_message_chunk", `<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"ok"}}}}`, func(t *testing.T, e ACPEvent) {
			n := e.(*ACPNotification)
			if n.Update == nil || n.Update.SessionID != "s" || n.Update.Update.SessionUpdate != "agent_message_chunk" || n.Update.Update.ChunkText() != "ok" {
				t.Errorf("chunk: %+v", n.Update)
			}
		}},
		{"tool_call", `<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t1","kind":"execute","status":"in_progress","rawInput":{"toolName":"q","providerIdentifier":"db"},"locations":[{"path":"/w/a"}]}}}`, func(t *testing.T, e ACPEvent) {
			u := e.(*ACPNotification).Update.Update
			tool, server := u.MCP()
			if u.ToolCallID != "t1" || u.Kind != "execute" || u.Status != "in_progress" || tool != "q" || server != "db" || len(u.Locations) != 1 {
				t.Errorf("tool_call: %+v", u.ACPToolCall)
			}
		}},
		{"plan", `<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"content":"x","priority":"high","status":"pending"}]}}}`, func(t *testing.T, e ACPEvent) {
			if u := e.(*ACPNotification).Update.Update; len(u.Entries) != 1 || u.Entries[0].Status != "pending" {
				t.Errorf("plan: %+v", u.Entries)
			}
		}},
		{"usage_update", `<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":10,"size":200,"cost":{"amount":0.25,"currency":"USD"}}}}`, func(t *testing.T, e ACPEvent) {
			u := e.(*ACPNotification).Update.Update
			if u.Used == nil || *u.Used != 10 || u.Size == nil || *u.Size != 200 || u.Cost == nil || u.Cost.Amount != 0.25 {
				t.Errorf("usage_update: %+v", u)
			}
		}},
		{"state_update", `<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn","usage":{"inputTokens":5}}}}`, func(t *testing.T, e ACPEvent) {
			state, stop, usage := e.(*ACPNotification).Update.Update.StateOf()
			if state != "idle" || stop != "end_turn" || usage == nil || usage.Input() != 5 {
				t.Errorf("state_update: %q %q %+v", state, stop, usage)
			}
		}},
		{"config_option_update", `<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"config_option_update","configOptions":[{"id":"m","category":"model","currentValue":"sonnet"}]}}}`, func(t *testing.T, e ACPEvent) {
			if u := e.(*ACPNotification).Update.Update; ModelOf(nil, u.ConfigOptions) != "sonnet" {
				t.Errorf("config_option_update: %+v", u.ConfigOptions)
			}
		}},
		{"subagent_update", `<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"subagent_update","sessionId":"child","name":"explore","state":{"state":"running"}}}}`, func(t *testing.T, e ACPEvent) {
			u := e.(*ACPNotification).Update.Update
			if state, _, _ := u.StateOf(); u.ChildSessionID != "child" || u.Name != "explore" || state != "running" {
				t.Errorf("subagent_update: %+v", u)
			}
		}},
		// Malformed params never lose the message: what decodes is kept.
		{"prompt params not an object", `>{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":"garbage"}`, func(t *testing.T, e ACPEvent) {
			if r := e.(*ACPRequest); r.Method != "session/prompt" || r.Prompt.SessionID != "" {
				t.Errorf("prompt: %+v", r)
			}
		}},
		{"prompt of the wrong type", `>{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{"sessionId":"s","prompt":"hi"}}`, func(t *testing.T, e ACPEvent) {
			if r := e.(*ACPRequest); r.Prompt.SessionID != "s" || r.Ref.SessionID != "s" {
				t.Errorf("the session is lost with the prompt's text: %+v", r)
			}
		}},
		{"update not decodable", `<{"jsonrpc":"2.0","method":"session/update","params":[1,2]}`, func(t *testing.T, e ACPEvent) {
			if n := e.(*ACPNotification); n.Update != nil {
				t.Errorf("update: %+v", n.Update)
			}
		}},
		{"update without params", `<{"jsonrpc":"2.0","method":"session/update"}`, func(t *testing.T, e ACPEvent) {
			if n := e.(*ACPNotification); n.Update != nil {
				t.Errorf("update: %+v", n.Update)
			}
		}},
		{"todos of the wrong type", `<{"jsonrpc":"2.0","id":9,"method":"cursor/update_todos","params":{"toolCallId":"t","todos":{"a":1}}}`, func(t *testing.T, e ACPEvent) {
			if r := e.(*ACPRequest); r.Ref.ToolCallID != "t" || r.Ref.Todos != nil {
				t.Errorf("todos: %+v", r.Ref)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			events := decodeSession(t, tt.line)
			if len(events) != 1 {
				t.Fatalf("%d events", len(events))
			}
			tt.check(t, events[0])
		})
	}
}

// TestACPDecoderResults: an answer is paired with its request (which
// went the other way) and its result decoded by the request's method.
func TestACPDecoderResults(t *testing.T) {
	for _, tt := range []struct {
		name, request, answer string
		want                  func(r ACPResult) bool
	}{
		{"initialize", `>{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`, `<{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"cursor-agent","version":"1.2"}}}`,
			func(r ACPResult) bool {
				return r.Initialize.AgentInfo != nil && r.Initialize.AgentInfo.Version == "1.2" && r.Initialize.Version() == "1"
			}},
		{"session/new", `>{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}`, `<{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s","models":{"currentModelId":"gpt-5"},"modes":{"currentModeId":"ask"}}}`,
			func(r ACPResult) bool {
				return r.Session.SessionID == "s" && ModelOf(r.Session.Models, nil) == "gpt-5" && ModeOf(r.Session.Modes, nil) == "ask"
			}},
		{"session/load", `>{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"s"}}`, `<{"jsonrpc":"2.0","id":1,"result":{"configOptions":[{"category":"model","currentValue":"c2"}]}}`,
			func(r ACPResult) bool { return ModelOf(r.Session.Models, r.Session.ConfigOptions) == "c2" }},
		{"session/prompt", `>{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`, `<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn","usage":{"inputTokens":10,"outputTokens":3}}}`,
			func(r ACPResult) bool {
				return r.Prompt.StopReason == "end_turn" && r.Prompt.Usage != nil && r.Prompt.Usage.Output() == 3
			}},
		{"cursor/task", `<{"jsonrpc":"2.0","id":3,"method":"cursor/task","params":{"toolCallId":"t"}}`, `>{"jsonrpc":"2.0","id":3,"result":{"agentId":"ag","durationMs":42}}`,
			func(r ACPResult) bool {
				return r.Task.AgentID == "ag" && r.Task.DurationMs != nil && *r.Task.DurationMs == 42
			}},
		{"request_permission", `<{"jsonrpc":"2.0","id":4,"method":"session/request_permission","params":{"sessionId":"s"}}`, `>{"jsonrpc":"2.0","id":4,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}`,
			func(r ACPResult) bool {
				return r.Permission.Outcome.Outcome == "selected" && r.Permission.Outcome.OptionID == "ok"
			}},
		{"ask_question", `<{"jsonrpc":"2.0","id":5,"method":"cursor/ask_question","params":{"toolCallId":"t"}}`, `>{"jsonrpc":"2.0","id":5,"result":{"outcome":{"outcome":"answered"}}}`,
			func(r ACPResult) bool { return r.Outcome == "answered" }},
		{"create_plan", `<{"jsonrpc":"2.0","id":6,"method":"cursor/create_plan","params":{}}`, `>{"jsonrpc":"2.0","id":6,"result":{"approved":false}}`,
			func(r ACPResult) bool { return r.Outcome == "rejected" }},
		{"elicitation", `<{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{}}`, `>{"jsonrpc":"2.0","id":7,"result":{"action":"decline"}}`,
			func(r ACPResult) bool { return r.Outcome == "decline" }},
		{"an unknown method's result is not decoded", `<{"jsonrpc":"2.0","id":8,"method":"fs/read_text_file","params":{}}`, `>{"jsonrpc":"2.0","id":8,"result":{"content":"x","outcome":"y"}}`,
			func(r ACPResult) bool { return reflect.ValueOf(r).IsZero() }},
		// Malformed results: the answer still comes (it closes its turn), zero.
		{"prompt result not an object", `>{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{}}`, `<{"jsonrpc":"2.0","id":9,"result":[1]}`,
			func(r ACPResult) bool { return reflect.ValueOf(r).IsZero() }},
		{"prompt result null", `>{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{}}`, `<{"jsonrpc":"2.0","id":9,"result":null}`,
			func(r ACPResult) bool { return reflect.ValueOf(r).IsZero() }},
		{"usage of the wrong type", `>{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{}}`, `<{"jsonrpc":"2.0","id":9,"result":{"stopReason":"cancelled","usage":"lots"}}`,
			func(r ACPResult) bool {
				return r.Prompt.StopReason == "cancelled" && (r.Prompt.Usage == nil || *r.Prompt.Usage == ACPUsage{})
			}},
		{"an error answer", `>{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{}}`, `<{"jsonrpc":"2.0","id":9,"error":{"code":-32603,"message":"boom"}}`,
			func(r ACPResult) bool { return reflect.ValueOf(r).IsZero() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			events := decodeSession(t, tt.request, tt.answer)
			if len(events) != 2 {
				t.Fatalf("%d events", len(events))
			}
			req, ans := events[0].(*ACPRequest), events[1].(*ACPAnswer)
			if ans.Request != req {
				t.Fatalf("the answer is not paired with its request")
			}
			if !tt.want(ans.Result) {
				t.Errorf("result: %+v", ans.Result)
			}
		})
	}
}

// TestACPDecoderPairs: answers are paired by the id's value, the other
// way from their request, once; an id taken again before its answer
// says so.
func TestACPDecoderPairs(t *testing.T) {
	for _, tt := range []struct {
		name   string
		lines  []string
		paired bool // the last line, an answer, is paired with the first, a request
	}{
		{"2.0 answered by 2", []string{`>{"jsonrpc":"2.0","id":2.0,"method":"session/prompt","params":{}}`, `<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`}, true},
		{"2 answered by 2.0", []string{`>{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{}}`, `<{"jsonrpc":"2.0","id":2.0,"result":{}}`}, true},
		{"2e0 answered by 2", []string{`>{"jsonrpc":"2.0","id":2e0,"method":"session/prompt","params":{}}`, `<{"jsonrpc":"2.0","id":2,"result":{}}`}, true},
		{`"2" is not 2`, []string{`>{"jsonrpc":"2.0","id":"2","method":"session/prompt","params":{}}`, `<{"jsonrpc":"2.0","id":2,"result":{}}`}, false},
		{"2.5 is not 2", []string{`>{"jsonrpc":"2.0","id":2.5,"method":"session/prompt","params":{}}`, `<{"jsonrpc":"2.0","id":2,"result":{}}`}, false},
		{"an answer going the same way", []string{`>{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{}}`, `>{"jsonrpc":"2.0","id":2,"result":{}}`}, false},
		{"answered once", []string{`>{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{}}`, `<{"jsonrpc":"2.0","id":2,"result":{}}`, `<{"jsonrpc":"2.0","id":2,"result":{}}`}, false},
		{"the same id each way", []string{`>{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{}}`, `<{"jsonrpc":"2.0","id":2,"method":"fs/read_text_file","params":{}}`, `>{"jsonrpc":"2.0","id":2,"result":{}}`, `<{"jsonrpc":"2.0","id":2,"result":{}}`}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			events := decodeSession(t, tt.lines...)
			if len(events) != len(tt.lines) {
				t.Fatalf("%d events of %d lines", len(events), len(tt.lines))
			}
			ans := events[len(events)-1].(*ACPAnswer)
			if paired := ans.Request == events[0]; paired != tt.paired {
				t.Errorf("paired %v, want %v (answer of %+v)", paired, tt.paired, ans.Request)
			}
		})
	}

	d := NewACPDecoder()
	decode := func(fromEditor bool, line string) ACPEvent {
		e, ok := d.Decode(fromEditor, []byte(line))
		if !ok {
			t.Fatalf("not decoded: %s", line)
		}
		return e
	}
	first := decode(true, `{"jsonrpc":"2.0","id":1,"method":"session/set_mode","params":{"sessionId":"s","modeId":"ask"}}`).(*ACPRequest)
	second := decode(true, `{"jsonrpc":"2.0","id":1.0,"method":"session/set_mode","params":{"sessionId":"s","modeId":"plan"}}`).(*ACPRequest)
	if first.Replaces != nil || second.Replaces != first {
		t.Errorf("the id taken again does not say the request it replaced")
	}
	ans := decode(false, `{"jsonrpc":"2.0","id":1,"result":{}}`).(*ACPAnswer)
	if ans.Request != second || ans.Request.Ref.ModeID != "plan" {
		t.Errorf("the answer is not the later request's: %+v", ans.Request)
	}
}

// TestACPDecoderReusedNotificationLeavesNothingBehind: the notification
// the decoder reuses starts each decode empty, and what the tracer kept
// of the last one (a pointer to its figures) is not written through.
func TestACPDecoderReusedNotificationLeavesNothingBehind(t *testing.T) {
	d := NewACPDecoder()
	e, _ := d.Decode(false, []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":10,"size":200}}}`))
	used := e.(*ACPNotification).Update.Update.Used
	e, _ = d.Decode(false, []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"t","update":{"sessionUpdate":"usage_update","used":20}}}`))
	if u := e.(*ACPNotification).Update; *used != 10 || u.SessionID != "t" || *u.Update.Used != 20 || u.Update.Size != nil {
		t.Errorf("the first update's used is %d; the second's: %+v", *used, u.Update)
	}
	e, _ = d.Decode(false, []byte(`{"jsonrpc":"2.0","method":"session/update","params":"garbage"}`))
	if n := e.(*ACPNotification); n.Update != nil {
		t.Errorf("an update that does not decode keeps the last one's: %+v", n.Update)
	}
	e, _ = d.Decode(true, []byte(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`))
	if n := e.(*ACPNotification); n.Update != nil || n.Ref.SessionID != "s" || !n.FromEditor {
		t.Errorf("cancel: %+v", n)
	}
}

// A peer that never answers: the decoder holds at most maxPendingACP
// requests, and an answer still pairs with a request it holds.
func TestACPDecoderBoundsUnanswered(t *testing.T) {
	d := NewACPDecoder()
	for i := range maxPendingACP + 100 {
		d.Decode(false, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"fs/read_text_file","params":{}}`, i)))
	}
	if len(d.awaiting) != maxPendingACP {
		t.Errorf("%d requests held; want at most %d", len(d.awaiting), maxPendingACP)
	}
	last := maxPendingACP + 99
	ev, _ := d.Decode(true, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, last)))
	if a, ok := ev.(*ACPAnswer); !ok || a.Request == nil || a.Request.Method != "fs/read_text_file" {
		t.Errorf("the last request's answer: %#v; want it paired with its request", ev)
	}
}
