package spanmap

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/cursor-otel/cursor-otel/internal/redact"
)

// idsOf are the identifier attributes of spans, as "key=value", sorted.
func idsOf(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		for _, kv := range s.Attributes() {
			if identifiers[kv.Key] {
				out = append(out, string(kv.Key)+"="+kv.Value.String())
			}
		}
	}
	slices.Sort(out)
	return out
}

// maskingAll is the model's options with a redactor that takes every
// identifier value given for a secret, as a value in a variable whose
// name says secret is taken.
func maskingAll(ids []string) Options {
	var lits []string
	for _, kv := range ids {
		for i := range kv {
			if kv[i] == '=' {
				lits = append(lits, kv[i+1:])
				break
			}
		}
	}
	r := redact.New(redact.Options{Literals: lits})
	return Options{Redact: r.Redact, RedactJSON: r.RedactJSON}
}

// Identifiers are never redacted, whatever the redactor takes for a
// secret: each source's spans carry the same ids with every id a known
// secret value as without.
func TestIdentifiersAreNeverRedacted(t *testing.T) {
	sources := map[string]func(Options) []sdktrace.ReadOnlySpan{}
	streams, _ := filepath.Glob("testdata/streams/*.ndjson")
	for _, path := range append(streams, realFixtures(t)...) {
		sources[path] = func(o Options) []sdktrace.ReadOnlySpan { return recordFile(t, path, o).Snapshots() }
	}
	hooks, _ := filepath.Glob("testdata/hooks/*.ndjson")
	for _, path := range hooks {
		sources[path] = func(o Options) []sdktrace.ReadOnlySpan { return hookConversation(t, path, o).Snapshots() }
	}
	sources["acp"] = func(o Options) []sdktrace.ReadOnlySpan {
		return acpScriptWith(t, o,
			`>{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`,
			`<{"jsonrpc":"2.0","id":1,"result":{"sessionId":"9b2f4c1e-77aa-4d1b-8c3e-5f6a7b8c9d0e"}}`,
			`>{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"9b2f4c1e-77aa-4d1b-8c3e-5f6a7b8c9d0e","prompt":[]}}`,
			`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"9b2f4c1e-77aa-4d1b-8c3e-5f6a7b8c9d0e","update":{"sessionUpdate":"tool_call","toolCallId":"call_0a1b2c3d","kind":"read","status":"completed"}}}`,
			`<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`,
			`>{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"9b2f4c1e-77aa-4d1b-8c3e-5f6a7b8c9d0e","prompt":[]}}`,
			`<{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`,
		)
	}
	seen := 0
	for name, run := range sources {
		t.Run(filepath.Base(name), func(t *testing.T) {
			want := idsOf(run(Options{}))
			if len(want) == 0 {
				return
			}
			seen++
			if got := idsOf(run(maskingAll(want))); !slices.Equal(got, want) {
				t.Errorf("with every identifier a known secret, the identifiers are\n%q\nwant\n%q", got, want)
			}
		})
	}
	if seen < 3 {
		t.Errorf("only %d sources with identifiers", seen)
	}
}

// The attributes that name a thing are identifiers.
func TestIdentifierKeysAreKnown(t *testing.T) {
	for _, k := range []attribute.Key{ConversationID, GenerationID, ModelCallID, ToolCallID, RequestID, InteractionID, SubagentID, SubagentParent, SubagentSessionID, MessageFromSession} {
		if !identifiers[k] {
			t.Errorf("%s is not an identifier", k)
		}
	}
}

// An identifier as long as a page, or not UTF-8, is bounded and made
// valid on every span that carries it, whichever source gave it: a
// stream's model_call_id, ACP's tool call ids and JSON-RPC request ids.
func TestIdentifiersAreBounded(t *testing.T) {
	long := strings.Repeat("x", 3*maxMessage) + "\xff"
	stream := t.TempDir() + "/long.ndjson"
	lines := `{"type":"system","subtype":"init","session_id":"s","model":"m"}` + "\n" +
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]},"session_id":"s","model_call_id":"` + long + `"}` + "\n" +
		`{"type":"result","subtype":"success","session_id":"s","is_error":false}` + "\n"
	if err := os.WriteFile(stream, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	spans := recordFile(t, stream, Options{}).Snapshots()
	spans = append(spans, acpScript(t, acpNewSession, acpNewSessionA,
		`>{"jsonrpc":"2.0","id":"`+long+`","method":"session/prompt","params":{"sessionId":"a","prompt":[]}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"`+long+`","kind":"read","status":"completed"}}}`,
		`<{"jsonrpc":"2.0","id":"`+long+`","result":{"stopReason":"end_turn"}}`,
	)...)
	seen := map[attribute.Key]bool{}
	for _, s := range spans {
		for _, kv := range s.Attributes() {
			if v := kv.Value.AsString(); identifiers[kv.Key] && strings.Contains(v, "xxx") {
				seen[kv.Key] = true
				if len(v) > maxMessage+40 || !utf8.ValidString(v) {
					t.Errorf("%s on %s: %d bytes, valid UTF-8 %v; want at most %d and valid", kv.Key, s.Name(), len(v), utf8.ValidString(v), maxMessage)
				}
			}
		}
	}
	for _, k := range []attribute.Key{ModelCallID, ToolCallID, RPCRequestID, JSONRPCRequestID} {
		if !seen[k] {
			t.Errorf("no span carries %s", k)
		}
	}
}
