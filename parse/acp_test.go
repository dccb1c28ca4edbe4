package parse

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestDecodeACP(t *testing.T) {
	for _, tt := range []struct {
		name, line string
		ok         bool
		kind       string // request, notification, answer
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{}}`, true, "request"},
		{"string id", `{"jsonrpc":"2.0","id":"x-1","method":"initialize"}`, true, "request"},
		{"notification", `{"jsonrpc":"2.0","method":"session/update","params":{}}`, true, "notification"},
		{"null id is a notification", `{"jsonrpc":"2.0","id":null,"method":"session/cancel"}`, true, "notification"},
		{"result", `{"jsonrpc":"2.0","id":1,"result":null}`, true, "answer"},
		{"error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}`, true, "answer"},
		{"crlf", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n", true, "answer"},
		{"no version", `{"id":1,"method":"x"}`, false, ""},
		{"version 1", `{"jsonrpc":"1.0","id":1,"method":"x"}`, false, ""},
		{"id alone", `{"jsonrpc":"2.0","id":1}`, false, ""},
		{"not json", `cursor-agent: logged out`, false, ""},
		{"array", `[{"jsonrpc":"2.0","id":1,"method":"x"}]`, false, ""},
		{"cut", `{"jsonrpc":"2.0","id":1,"meth`, false, ""},
		{"empty", ``, false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := DecodeACP([]byte(tt.line))
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			kind := map[bool]string{true: "request"}[m.IsRequest()] + map[bool]string{true: "notification"}[m.IsNotification()] + map[bool]string{true: "answer"}[m.Method == "" && m.ID != ""]
			if kind != tt.kind {
				t.Errorf("kind %q, want %q", kind, tt.kind)
			}
		})
	}
}

func TestModelOf(t *testing.T) {
	opts := []ACPConfigOption{{ID: "mode", Category: "mode", CurrentValue: []byte(`"agent"`)}, {ID: "model", Category: "model", CurrentValue: []byte(`"composer-2"`)}}
	if got := ModelOf(&ACPModels{CurrentModelID: "gpt-5"}, opts); got != "composer-2" {
		t.Errorf("configOptions' model: %q", got)
	}
	if got := ModelOf(&ACPModels{CurrentModelID: "gpt-5"}, nil); got != "gpt-5" {
		t.Errorf("currentModelId: %q", got)
	}
}

// FuzzACPLines: no line, of either side, crashes the JSON-RPC reader, the
// pairing of answers or the typed fields.
func FuzzACPLines(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/prompt\",\"params\":{\"prompt\":[{\"type\":\"text\",\"text\":\"x\"}],\"_meta\":{\"traceparent\":\"00-\"}}}\n\r\nx"))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1,"size":2,"cost":{"amount":0.1,"currency":"USD"}}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		d := NewACPDecoder()
		for i, line := range bytes.SplitAfter(in, []byte("\n")) {
			_, _ = d.Decode(i%3 != 0, line) // the lines as either side's, answers paired
			if m, ok := DecodeACP(line); ok {
				var u ACPUpdateParams
				_ = json.Unmarshal(m.Params, &u)
				_ = u.Update.ChunkText()
				var r ACPSessionResult
				_ = json.Unmarshal(m.Result, &r)
				_ = ModelOf(r.Models, r.ConfigOptions)
			}
		}
	})
}

// TestACPIDsByValue: an answer matches its request by the id's value, as
// JSON-RPC peers compare them (an SDK answers a request of id 2.0 with 2),
// never a string with a number.
func TestACPIDsByValue(t *testing.T) {
	for _, tt := range []struct{ a, b string }{
		{`2.0`, `2`}, {`2e0`, `2`}, {`20E-1`, `2`}, {`-0`, `0`}, {`-0.0`, `0`},
		{`"a"`, `"\u0061"`}, {`12345678901234567890`, `12345678901234567890`}, {`0.5`, `5e-1`},
	} {
		if x, y := idOf(t, tt.a), idOf(t, tt.b); x != y {
			t.Errorf("id %s is %q, id %s is %q: want the same", tt.a, x, tt.b, y)
		}
	}
	for _, tt := range []struct{ a, b string }{{`"2"`, `2`}, {`2.5`, `2`}, {`"2.0"`, `"2"`}, {`12345678901234567890`, `12345678901234567891`}} {
		if x, y := idOf(t, tt.a), idOf(t, tt.b); x == y {
			t.Errorf("id %s and id %s are both %q: want them different", tt.a, tt.b, x)
		}
	}
}

func idOf(t *testing.T, id string) string {
	t.Helper()
	m, ok := DecodeACP([]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`))
	if !ok {
		t.Fatalf("id %s: not decoded", id)
	}
	return m.ID
}

// TestACPUsageInputCountsCached: the input tokens include the cached ones,
// whichever way the agent counts inputTokens.
func TestACPUsageInputCountsCached(t *testing.T) {
	for _, tt := range []struct {
		name, usage string
		want        int64
	}{
		{"input already whole (total = input + output)", `{"inputTokens":1200,"outputTokens":300,"totalTokens":1500,"cachedReadTokens":800}`, 1200},
		{"fresh input (total counts the cache apart)", `{"inputTokens":400,"outputTokens":300,"totalTokens":1500,"cachedReadTokens":800}`, 1200},
		{"fresh input with cache writes, snake case", `{"input_tokens":100,"output_tokens":10,"total_tokens":160,"cached_read_tokens":20,"cached_write_tokens":30}`, 150},
		{"no total: as given", `{"inputTokens":100,"cachedReadTokens":20}`, 100},
	} {
		var u ACPUsage
		if err := json.Unmarshal([]byte(tt.usage), &u); err != nil {
			t.Fatal(err)
		}
		if got := u.Input(); got != tt.want {
			t.Errorf("%s: input %d, want %d", tt.name, got, tt.want)
		}
		// As every source counts it: the fresh input apart from the cache.
		if c := u.Usage(); c.InputTokens+c.CacheReadTokens+c.CacheCreationTokens != tt.want || c.OutputTokens != u.Output() {
			t.Errorf("%s: usage %+v, want %d input in all and %d output", tt.name, c, tt.want, u.Output())
		}
	}
}

// An ACP tool call is named by its kind, as the same tool is in a stream.
func TestACPToolName(t *testing.T) {
	for kind, want := range map[string]string{"": "other", "execute": "shell", "fetch": "web_fetch", "read": "read", "edit": "edit", "think": "think"} {
		if got := ACPToolName(kind); got != want {
			t.Errorf("ACPToolName(%q) = %q, want %q", kind, got, want)
		}
	}
}
