package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// secrets are one of each shape, each put somewhere else in a run.
var secrets = map[string]string{
	"GitHub token":        "ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa",
	"AWS access key id":   "AKIAZ7Y6X5W4V3U2T1S0",
	"AWS secret":          "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
	"OpenAI key":          "sk-proj-Q1w2E3r4T5y6U7i8O9p0Aa",
	"Slack token":         "xoxb-2048-4096-AbCdEfGhIjKl",
	"JWT":                 "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaSJ9.c2lnbmF0dXJlX3Rlc3Q",
	"bearer token":        "tok_9f8e7d6c5b4a3210",
	"private key":         "MIIEowIBAAKCAQEAr4nd0mBytesForTheTest",
	"URL password":        "hunter2hunter2",
	"PASSWORD= value":     "pg-S3cret-Passw0rd",
	"--api-key value":     "key_live_cursor_0123456789",
	"environment secret":  "envtok-5e4d3c2b1a",
	"OTLP URL credential": "otlp-pw-778899",
}

// secretStream puts the secrets in every place a stream can hold text.
func secretStream(t *testing.T) string {
	t.Helper()
	s := secrets
	lines := []string{
		fmt.Sprintf(`{"type":"system","subtype":"init","session_id":"sec-1","model":"Auto %s","cwd":"/builds/acme"}`, s["Slack token"]),
		fmt.Sprintf(`{"type":"user","message":{"content":[{"type":"text","text":"Deploy with the key %s"}]},"session_id":"sec-1"}`, s["OpenAI key"]),
		fmt.Sprintf(`{"type":"thinking","subtype":"delta","text":"The Slack token %s is in the env","session_id":"sec-1","timestamp_ms":1790000001000}`, s["Slack token"]),
		`{"type":"thinking","subtype":"completed","session_id":"sec-1","timestamp_ms":1790000001100}`,
		fmt.Sprintf(`{"type":"assistant","message":{"content":[{"type":"text","text":"Using the JWT %s"}]},"session_id":"sec-1","model_call_id":"m-0","timestamp_ms":1790000001200}`, s["JWT"]),
		fmt.Sprintf(`{"type":"tool_call","subtype":"started","call_id":"sh","tool_call":{"shellToolCall":{"args":{"command":%q}}},"model_call_id":"m-0","timestamp_ms":1790000001300}`,
			fmt.Sprintf(`curl -H "Authorization: Bearer %s" https://deploy:%s@api.example.com && PGPASSWORD=%s psql`, s["bearer token"], s["URL password"], s["PASSWORD= value"])),
		fmt.Sprintf(`{"type":"tool_call","subtype":"completed","call_id":"sh","tool_call":{"shellToolCall":{"result":{"failure":{"exitCode":1,"stdout":%q,"stderr":""}}}},"model_call_id":"m-0","timestamp_ms":1790000002300}`,
			fmt.Sprintf("GITHUB_TOKEN=%s\naws id %s\nservice token %s\n", s["GitHub token"], s["AWS access key id"], s["environment secret"])),
		fmt.Sprintf(`{"type":"tool_call","subtype":"started","call_id":"wr","tool_call":{"writeToolCall":{"args":{"path":"deploy/key.pem","fileText":%q}}},"model_call_id":"m-0","timestamp_ms":1790000002400}`,
			"-----BEGIN RSA PRIVATE KEY-----\n"+s["private key"]+"\n-----END RSA PRIVATE KEY-----\n"),
		`{"type":"tool_call","subtype":"completed","call_id":"wr","tool_call":{"writeToolCall":{"result":{"success":{"linesCreated":3}}}},"model_call_id":"m-0","timestamp_ms":1790000002500}`,
		fmt.Sprintf(`{"type":"error","message":"aws rejected AWS_SECRET_ACCESS_KEY=%s","timestamp_ms":1790000003000}`, s["AWS secret"]),
		fmt.Sprintf(`{"type":"result","subtype":"error","is_error":true,"result":"deploy failed for %s","session_id":"sec-1","timestamp_ms":1790000003100}`, s["GitHub token"]),
	}
	path := filepath.Join(t.TempDir(), "secrets.ndjson")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// leaks lists the secrets found anywhere in exported spans: names, status
// messages, attributes, event attributes.
func leaks(spans []golden.Span) []string {
	var texts []string
	for _, s := range spans {
		texts = append(texts, s.Name, s.StatusMessage)
		for _, kv := range s.Attributes {
			texts = append(texts, kv.Value)
		}
		for _, e := range s.Events {
			for _, kv := range e.Attributes {
				texts = append(texts, kv.Value)
			}
		}
	}
	all := strings.Join(texts, "\n")
	// Attribute values are quoted: a secret with / or " would be escaped.
	unquoted := strings.NewReplacer(`\n`, "\n", `\"`, `"`).Replace(all)
	var found []string
	for name, secret := range secrets {
		if strings.Contains(all, secret) || strings.Contains(unquoted, secret) || strings.Contains(all, strconv.Quote(secret)) {
			found = append(found, name)
		}
	}
	return found
}

// No secret leaves in a trace, wherever it appears, with content capture
// or without; the user's own stdout is never changed.
func TestSecretsNeverLeave(t *testing.T) {
	stream := secretStream(t)
	want, _ := os.ReadFile(stream)
	for _, capture := range []string{"false", "true"} {
		t.Run("capture="+capture, func(t *testing.T) {
			w := runWrapped(t, wrapSpec{
				args: []string{"--api-key", secrets["--api-key value"], "-p", "--output-format", "stream-json"},
				env: []string{"FAKEAGENT_STREAM=" + stream, "FAKEAGENT_EXIT=1", "CURSOR_OTEL_CAPTURE_CONTENT=" + capture,
					"MY_SERVICE_TOKEN=" + secrets["environment secret"],
					"FAKEAGENT_STDERR=error: bad credentials for " + secrets["AWS access key id"] + "\n"},
			})
			if w.stdout != string(want) {
				t.Errorf("stdout was changed: redaction is for the trace, not the user's output")
			}
			if found := leaks(w.spans); len(found) > 0 {
				t.Errorf("secrets in the trace: %v", found)
			}
			session := sessionSpan(t, w.spans)
			if line := value(session, "process.command_line"); !strings.Contains(line, "--api-key [REDACTED]") {
				t.Errorf("command line %q", line)
			}
			if tail := value(session, "cursor.stderr_tail"); tail != "error: bad credentials for [REDACTED]\n" {
				t.Errorf("stderr tail %q: want it kept, the key masked", tail)
			}
			for _, s := range w.spans {
				if cmd := value(s, "cursor.tool.command"); cmd != "" && !strings.Contains(cmd, `curl -H "Authorization: Bearer [REDACTED]" https://deploy:[REDACTED]@api.example.com && PGPASSWORD=[REDACTED] psql`) {
					t.Errorf("command %q: want the rest readable", cmd)
				}
			}
			if capture == "true" && value(session, "gen_ai.input.messages") == "" {
				t.Errorf("content capture recorded no prompt")
			}
		})
	}
}

// Replay's tree and warnings are redacted too, the collector's URL
// credentials among them.
func TestSecretsNeverPrinted(t *testing.T) {
	addr := strings.TrimPrefix(otlptest.Down(t), "http://")
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://ci:" + secrets["OTLP URL credential"] + "@" + addr}, nil,
		"--capture-content", "replay", secretStream(t))
	for name, secret := range secrets {
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("%s printed:\n%s%s", name, r.stdout, r.stderr)
		}
	}
	if !strings.Contains(r.stderr, "http://ci:[REDACTED]@") {
		t.Errorf("warning %q: want the endpoint shown with its password masked", r.stderr)
	}
}

// --redact adds patterns; --no-default-redaction drops the built-in shapes
// for a trusted backend, while known secret values stay masked.
func TestRedactionSettings(t *testing.T) {
	stream := filepath.Join(t.TempDir(), "s.ndjson")
	os.WriteFile(stream, []byte(`{"type":"system","subtype":"init","session_id":"r"}`+"\n"+
		`{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"notify ACME-1234 `+secrets["GitHub token"]+` `+secrets["environment secret"]+`"}}},"timestamp_ms":1790000000000}`+"\n"), 0o644)
	for _, tt := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"built-ins", nil, "notify ACME-1234 [REDACTED] [REDACTED]"},
		{"--redact", []string{"--redact", `ACME-\d{4}`}, "notify [REDACTED] [REDACTED] [REDACTED]"},
		{"--no-default-redaction", []string{"--no-default-redaction"}, "notify ACME-1234 " + secrets["GitHub token"] + " [REDACTED]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recv := otlptest.StartGRPC(t)
			r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "MY_SERVICE_TOKEN=" + secrets["environment secret"]}, nil,
				append(tt.flags, "replay", "--quiet", stream)...)
			if r.exit != 0 {
				t.Fatalf("exit %d: %s", r.exit, r.stderr)
			}
			var got string
			for _, s := range spansOf(recv) {
				got += value(s, "cursor.tool.command")
			}
			if got != tt.want {
				t.Errorf("command %q, want %q", got, tt.want)
			}
		})
	}
}

// A --redact pattern that does not compile never stops the agent, and
// nothing leaves without it.
func TestBadRedactPatternFailsClosed(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	w := runWrapped(t, wrapSpec{args: append([]string{"--redact", "ACME-[0-9"}, streamArgs()...), endpoint: recv.Endpoint,
		env: []string{"FAKEAGENT_STREAM=examples/failed-run.ndjson", "FAKEAGENT_EXIT=4"}})
	if w.exit != 4 || !strings.Contains(w.stdout, `"type":"result"`) {
		t.Errorf("exit %d: want the agent run through, its status 4", w.exit)
	}
	if strings.Count(w.stderr, "\n") != 1 || !strings.Contains(w.stderr, `--redact "ACME-[0-9": not a regular expression (missing closing ]); running cursor-agent untraced`) {
		t.Errorf("stderr %q, want one line", w.stderr)
	}
	if recv.SpanCount() != 0 {
		t.Errorf("%d spans exported without the pattern", recv.SpanCount())
	}
}
