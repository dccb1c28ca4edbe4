package redact

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/redact/redacttest"
)

// Secrets people put on command lines, as metadata (no content capture),
// and inside JSON, as content: each masked, the rest readable.
func TestLeaksClosed(t *testing.T) {
	r := New(Options{Literals: []string{"hcaik_01hq3kxyzABCDEFGHIJ"}})
	tests := []struct {
		name, in, want string
		json           bool // redacted as a JSON document (captured arguments, results)
	}{
		{"curl -u", "curl -u admin:pa55w0rd https://api.example.com", "curl -u [REDACTED] https://api.example.com", false},
		{"curl --user=", "curl --user=deploy:hunter2hunter2 https://x", "curl --user=[REDACTED] https://x", false},
		{"mysql -p attached", "mysql -uroot -phunter2 shop", "mysql -uroot -p[REDACTED] shop", false},
		{"docker login -p", "docker login -u bot -p dckr_pat_Qw3rTy1234567890 registry.example.com", "docker login -u bot -p [REDACTED] registry.example.com", false},
		{"PowerShell $env:, any case", `$env:github_token = "tok-9f8e7d6c"; gh pr list`, `$env:github_token = [REDACTED]; gh pr list`, false},
		{"setx", `setx /M DEPLOY_TOKEN abcdef0123456 && echo ok`, `setx /M DEPLOY_TOKEN [REDACTED] && echo ok`, false},
		{"setx, quoted", `setx "NPM_AUTH" "s3cr3t value"`, `setx "NPM_AUTH" [REDACTED]`, false},
		{"SetEnvironmentVariable", `[Environment]::SetEnvironmentVariable('Api_Key', 'ak_0123456789', 'User')`, `[Environment]::SetEnvironmentVariable('Api_Key', '[REDACTED]', 'User')`, false},
		{"SetEnvironmentVariable in a JSON string", jsonOf(t, map[string]any{"command": `[Environment]::SetEnvironmentVariable("DB_PASSWORD", "hunter2hunter2")`}),
			jsonOf(t, map[string]any{"command": `[Environment]::SetEnvironmentVariable("DB_PASSWORD", "[REDACTED]")`}), true},
		{"a cookie header", `curl -H "Cookie: session=7f3a9b2c1d; theme=dark" https://x`, `curl -H "Cookie: [REDACTED]" https://x`, false},
		{"NAME_PASS=", "MY_DB_PASS=s3cr3tpass ./run", "MY_DB_PASS=[REDACTED] ./run", false},
		{"NAME_PWD=", "DB_PWD=s3cr3tpass make", "DB_PWD=[REDACTED] make", false},
		{"NAME_KEY=", "SIGNING_KEY=abcdef012345 make release", "SIGNING_KEY=[REDACTED] make release", false},
		{"NAME_AUTH=", "REGISTRY_AUTH=dXNlcjpwYXNz npm publish", "REGISTRY_AUTH=[REDACTED] npm publish", false},
		{"NAME_SESSION=", "SESSION_COOKIE=abc123def456 curl x", "SESSION_COOKIE=[REDACTED] curl x", false},
		{"an AWS secret access key, with no name", "echo wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLE12 | aws configure",
			"echo [REDACTED] | aws configure", false},
		{"a YAML value on the next line", "db:\n  password:\n    hunter2hunter2\n  host: x", "db:\n  password:\n    [REDACTED]\n  host: x", false},
		{"a private key over many lines", "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEowIBAAKCAQEAr4nd0mBytes+/x\n", 120) + "-----END RSA PRIVATE KEY-----\nok",
			"-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----\nok", false},
		{"the collector's header value", "OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=hcaik_01hq3kxyzABCDEFGHIJ", "OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=[REDACTED]", false},
		{"secrets in a file read, as content", jsonOf(t, map[string]any{"success": map[string]any{
			"content": `{"client_secret": "cs_9f8e7d6c5b4a", "password": "hunter2hunter2", "apiKey": "ak_0123456789", "token": "tok_abcdef123456"}`}}),
			jsonOf(t, map[string]any{"success": map[string]any{
				"content": `{"client_secret": "[REDACTED]", "password": "[REDACTED]", "apiKey": "[REDACTED]", "token": "[REDACTED]"}`}}), true},
		{"a JSON body in a command, as arguments", jsonOf(t, map[string]any{"command": `curl -d '{"password":"hunter2hunter2"}' https://api`}),
			jsonOf(t, map[string]any{"command": `curl -d '{"password":"[REDACTED]"}' https://api`}), true},
		{"a secret field, as arguments", `{"url":"https://api","token":"tok_abcdef123456"}`, `{"url":"https://api","token":"[REDACTED]"}`, true},
		{"JSON escaped twice", jsonOf(t, map[string]any{"v": jsonOf(t, map[string]any{"w": "PGPASSWORD=hunter2hunter2\nnext"})}),
			jsonOf(t, map[string]any{"v": jsonOf(t, map[string]any{"w": "PGPASSWORD=[REDACTED]\nnext"})}), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.Redact(tt.in)
			if tt.json {
				got = r.RedactJSON(tt.in)
			}
			if got != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Ordinary text of the kinds an agent prints stays as it was: commit ids,
// paths, identifiers, base64 of no secret.
func TestKeepsIdentifiers(t *testing.T) {
	r := New(Options{})
	for _, s := range []string{
		"git show 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		"PWD is /home/user/project",
		"mysql --version",
		"docker login registry.example.com",
		"curl -u $USER https://x",
		`setx PATH "%PATH%;C:\tools"`,
		"$env:Path = 'C:\\tools;' + $env:Path",
	} {
		if got := r.Redact(s); got != s {
			t.Errorf("Redact(%q) = %q, want it unchanged", s, got)
		}
	}
}

// FuzzSecretsNeverLeave puts a secret of each family, in its context, into
// fuzzed text at a fuzzed place, written plain, inside a JSON string, or
// inside JSON escaped inside a JSON string, and wants it nowhere in what
// the redactor gives back: the guarantee, not only that nothing panics.
func FuzzSecretsNeverLeave(f *testing.F) {
	f.Add(uint8(0), []byte("ab"), "some text before", "and after", uint16(3), uint8(0))
	f.Add(uint8(9), []byte{0xff, 1, 2}, "", "\"}", uint16(0), uint8(1))
	f.Add(uint8(16), []byte("zz"), "{\"a\":1}", "", uint16(1), uint8(2))
	f.Fuzz(func(t *testing.T, family uint8, seed []byte, text, more string, at uint16, encoding uint8) {
		fam := redacttest.Families[int(family)%len(redacttest.Families)]
		secret := fam.Secret(seed)
		r := New(Options{Literals: []string{secret}[:boolInt(fam.Name == "collector credential")]})
		doc := text + more
		pos := int(at) % (len(doc) + 1)
		doc = doc[:pos] + "\n" + fam.Context(secret) + "\n" + doc[pos:]
		var got string
		switch encoding % 3 {
		case 0:
			got = r.Redact(doc)
		case 1:
			got = r.RedactJSON(jsonString(doc))
		case 2:
			got = r.RedactJSON(jsonString(`{"content":` + jsonString(doc) + `}`))
		}
		if strings.Contains(got, secret) || strings.Contains(got, strings.ReplaceAll(secret, "/", `\/`)) {
			t.Fatalf("%s %q leaked from encoding %d:\n%s", fam.Name, secret, encoding%3, got)
		}
	})
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The docs say how many rules there are and where they come from
// (docs/trace.md): they must say what the code holds.
func TestDocsCountTheRules(t *testing.T) {
	readme, err := os.ReadFile("../../docs/trace.md")
	if err != nil {
		t.Skipf("no docs/trace.md: %v", err)
	}
	builtin, gitleaks, version := len(builtins), len(gitleaksRules), gitleaksVersion
	text := strings.Join(strings.Fields(string(readme)), " ")
	for _, want := range []string{
		fmt.Sprintf("%d token shapes generated from", gitleaks),
		version + "'s default rules",
		fmt.Sprintf("%d shapes written here", builtin),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("docs/trace.md does not say %q", want)
		}
	}
}
