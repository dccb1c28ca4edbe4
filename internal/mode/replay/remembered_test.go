package replay

import (
	"strings"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/redact"
)

// Remembering changes nothing of what redaction makes of a string, the
// first time or the next, short or long, and holds at most maxRemembered.
func TestRememberedRedactsAsRedactionDoes(t *testing.T) {
	r := redact.New(redact.Options{})
	calls := 0
	counted := func(s string) string { calls++; return r.Redact(s) }
	red := remember(counted)
	secret := "export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	for _, s := range []string{"go test ./...", secret, "", "/home/user/project", strings.Repeat("x", 2*maxRememberedLen) + secret} {
		want := r.Redact(s)
		for range 3 {
			if got := red(s); got != want {
				t.Fatalf("%q: %q, want %q", s, got, want)
			}
		}
	}
	if red(secret) == secret {
		t.Fatalf("the secret is not masked: %q", red(secret))
	}
	if calls != 1+1+1+1+3 {
		t.Errorf("%d redactions, want each short string's once and the long one's each time", calls)
	}
	m := &remembered{redact: r.Redact, seen: map[string]string{}}
	for i := range 3 * maxRemembered {
		m.Redact(strings.Repeat("a", i%100) + string(rune('a'+i%26)) + strings.Repeat("b", i/100))
	}
	if len(m.seen) > maxRemembered {
		t.Errorf("%d remembered, want at most %d", len(m.seen), maxRemembered)
	}
	if remember(nil) != nil {
		t.Errorf("no redaction remembered as one")
	}
}
