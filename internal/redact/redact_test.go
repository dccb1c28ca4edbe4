package redact

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestBuiltins(t *testing.T) {
	r := New(Options{})
	tests := []struct {
		name, in, want string
	}{
		{"bearer in a curl command", `curl -H "Authorization: Bearer abcdef0123456789" https://api.example.com`,
			`curl -H "Authorization: Bearer [REDACTED]" https://api.example.com`},
		{"bare bearer token", "token is Bearer eyabc.def-ghi_jkl~mno", "token is Bearer [REDACTED]"},
		{"basic auth header", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED]"},
		{"header as JSON", `{"Authorization":"token ghs_abc"}`, `{"Authorization":"token [REDACTED]"}`},
		{"URL credentials keep the user", "git clone https://deploy:s3cretpass@github.com/acme/repo.git",
			"git clone https://deploy:[REDACTED]@github.com/acme/repo.git"},
		{"database URL", "psql postgres://app:hunter22@db:5432/app", "psql postgres://app:[REDACTED]@db:5432/app"},
		{"token user in a URL keeps the host", "https://x-access-token:ghs_0123456789abcdefghijABCDEFGHIJ012345@github.com/acme/shop.git",
			"https://x-access-token:[REDACTED]@github.com/acme/shop.git"},
		{"GitHub classic token", "GITHUB=ghp_0123456789abcdefghijABCDEFGHIJ012345 gh pr list", "GITHUB=[REDACTED] gh pr list"},
		{"GitHub fine-grained token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[REDACTED]"},
		{"GitLab token", "glpat-abcdefghij0123456789", "[REDACTED]"},
		{"AWS access key id", "aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE", "aws configure set aws_access_key_id [REDACTED]"},
		{"AWS secret assignment", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls",
			"AWS_SECRET_ACCESS_KEY=[REDACTED] aws s3 ls"},
		{"OpenAI key", "export OPENAI=sk-proj-abcdefghijklmnopqrstuvwxyz0123", "export OPENAI=[REDACTED]"},
		{"Anthropic key", "key sk-ant-api03-abcdefghijklmnopqrstuv_wxyz-0123", "key [REDACTED]"},
		{"Stripe key", "sk_live_abcdefghijklmnop1234", "[REDACTED]"},
		{"Slack token", "SLACK=xoxb-1234567890-abcdefghij", "SLACK=[REDACTED]"},
		{"Google API key", "key=AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", "key=[REDACTED]"},
		{"npm token", "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789", "//registry.npmjs.org/:_authToken=[REDACTED]"},
		{"JWT", "session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ok",
			"session [REDACTED] ok"},
		{"private key block", "key: -----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\nnext",
			"key: -----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----\nnext"},
		{"truncated private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk", "-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]"},
		{"TOKEN= assignment", "CI_JOB_TOKEN=abc123 make deploy", "CI_JOB_TOKEN=[REDACTED] make deploy"},
		{"SECRET= quoted", `DJANGO_SECRET="not so secret" ./manage.py`, `DJANGO_SECRET=[REDACTED] ./manage.py`},
		{"PASSWORD= assignment", "PGPASSWORD=pg-pass-1 psql", "PGPASSWORD=[REDACTED] psql"},
		{"API_KEY= assignment", "CURSOR_API_KEY=key_live_123456 cursor-agent -p hi", "CURSOR_API_KEY=[REDACTED] cursor-agent -p hi"},
		{"password setting", "db.password: hunter2", "db.password: [REDACTED]"},
		{"client secret setting", "client_secret=abcd1234", "client_secret=[REDACTED]"},
		{"api-key flag with space", "cursor-agent --api-key key_abcdef123 -p hi", "cursor-agent --api-key [REDACTED] -p hi"},
		{"api-key flag with equals", "cursor-agent --api-key=key_abcdef123 -p hi", "cursor-agent --api-key=[REDACTED] -p hi"},
		{"token flag at the start", "--token abcdef", "--token [REDACTED]"},
		{"JSON secret field", `{"user":"ann","password":"p@ss word"}`, `{"user":"ann","password":"[REDACTED]"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.Redact(tt.in); got != tt.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// Ordinary agent output must stay as it was.
func TestKeepsOrdinaryText(t *testing.T) {
	r := New(Options{})
	for _, s := range []string{
		"go test ./pkg/queue",
		"sleep 5",
		"max_tokens=100 temperature=0.2",
		`{"input_tokens": 48210, "output_tokens": 1876}`,
		"git checkout 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		"session 7f3c9a1e-5b2d-4c8e-9f10-2a6b3c4d5e6f",
		"/home/user/project/src/tokens.go",
		"the bearer of bad news",
		"npm test --prefix web",
		"https://github.com/acme/repo.git",
		"TOKENS_PER_MINUTE is documented in docs/limits.md",
		"ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519",
	} {
		if got := r.Redact(s); got != s {
			t.Errorf("Redact(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestLiteralsAndPatterns(t *testing.T) {
	r := New(Options{
		Literals: []string{"short", "my-api-key-value", "my-api-key-value-longer", "REDACT"},
		Patterns: []*regexp.Regexp{regexp.MustCompile(`ACME-\d{4}`), regexp.MustCompile(`(ticket=)\w+`)},
	})
	tests := []struct{ in, want string }{
		{"use my-api-key-value-longer now", "use [REDACTED] now"},
		{"use my-api-key-value now", "use [REDACTED] now"},
		{"short words stay short", "short words stay short"},
		{"customer ACME-1234 called", "customer [REDACTED] called"},
		{"ticket=abc123 open", "ticket=[REDACTED] open"},
	}
	for _, tt := range tests {
		if got := r.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNoBuiltins(t *testing.T) {
	r := New(Options{NoBuiltins: true, Literals: []string{"hunter22"}})
	in := "Authorization: Bearer abcdef0123456789 hunter22"
	if got, want := r.Redact(in), "Authorization: Bearer abcdef0123456789 [REDACTED]"; got != want {
		t.Errorf("Redact(%q) = %q, want %q", in, got, want)
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("Authorization: Bearer abcdef0123456789", "abcdef")
	f.Add("postgres://u:p@h/db PGPASSWORD=x --api-key=y", "y-value")
	f.Add("\xff\xfe sk-abcdefghijklmnopqrstuvwxyz", "\xffsecret")
	f.Add("-----BEGIN EC PRIVATE KEY-----\n\x00", "BEGIN EC")
	f.Fuzz(func(t *testing.T, s, literal string) {
		r := New(Options{Literals: []string{literal}})
		got := r.Redact(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Redact(%q) = %q: invalid UTF-8", s, got)
		}
		if again := r.Redact(got); again != got {
			t.Fatalf("not idempotent: %q → %q → %q", s, got, again)
		}
		if len(literal) >= minLiteral && utf8.ValidString(literal) && !strings.Contains(Mask, literal) && strings.Contains(got, literal) {
			t.Fatalf("Redact(%q) = %q still holds the secret %q", s, got, literal)
		}
	})
}

func TestSecretsInEnviron(t *testing.T) {
	got := SecretsInEnviron([]string{
		"CURSOR_API_KEY=key_live_123", "GITHUB_TOKEN=ghs_abc", "db_password=pw12345", "AWS_SECRET_ACCESS_KEY=wJal",
		"PATH=/usr/bin", "HOME=/root", "EMPTY_TOKEN=", "NOVALUE", "TOKENIZER_MODEL_PATH=/models/x",
		"MY_DB_PASS=hunter2", "DB_PWD=pwd123", "SIGNING_KEY=sk123", "REGISTRY_AUTH=dXNlcjpw", "SESSION_COOKIE=abc123",
		"PWD=/home/u/src", "OLDPWD=/home/u", "SSH_AUTH_SOCK=/tmp/ssh-x/agent.1", "XDG_SESSION_ID=3",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus", "SESSION_MANAGER=local/host:@/tmp/.ICE-unix/1",
		"CURSOR_SESSION_ID=7f3c9a1e-5b2d-4c8e-9f10-2a6b3c4d5e6f", "SESSION_ID=7f3c9a1e", "TERM_SESSION_ID=w0t0p0",
		"SESSION_TOKEN=st_123456", "SESSION_KEY=sk_654321",
	})
	want := []string{"key_live_123", "ghs_abc", "pw12345", "wJal", "/models/x", "hunter2", "pwd123", "sk123", "dXNlcjpw", "abc123", "st_123456", "sk_654321"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("SecretsInEnviron = %q, want %q", got, want)
	}
}

// An identifier kept in a variable whose name says secret is masked in
// text only where another rule finds a secret.
func TestExcept(t *testing.T) {
	const id = "7f3c9a1e-5b2d-4c8e-9f10-2a6b3c4d5e6f"
	r := New(Options{Literals: []string{id, "hunter2hunter2"}})
	in := "cursor-agent --resume " + id + " -p hi; PGPASSWORD=" + id + " psql; echo hunter2hunter2"
	if got, want := r.Redact(in), "cursor-agent --resume [REDACTED] -p hi; PGPASSWORD=[REDACTED] psql; echo [REDACTED]"; got != want {
		t.Errorf("Redact\n got %q\nwant %q", got, want)
	}
	if got, want := r.Except(id).Redact(in), "cursor-agent --resume "+id+" -p hi; PGPASSWORD=[REDACTED] psql; echo [REDACTED]"; got != want {
		t.Errorf("Except(id).Redact\n got %q\nwant %q", got, want)
	}
	if r.Except("not a literal") != r {
		t.Error("Except of no literal made a new Redactor")
	}
	if got := r.Except(id, "hunter2hunter2").Redact("echo hunter2hunter2"); got != "echo hunter2hunter2" {
		t.Errorf("Except of every literal: %q", got)
	}
}
