package settings

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func TestMetricsUser(t *testing.T) {
	sum := sha256.Sum256([]byte("s3cret\x00dev@acme.com"))
	hashed := hex.EncodeToString(sum[:])
	for _, tt := range []struct {
		env     map[string]string
		email   string
		want    Person
		problem string
	}{
		{map[string]string{}, "dev@acme.com", Person{}, ""},
		{map[string]string{"CURSOR_OTEL_METRICS_USER": "off"}, "dev@acme.com", Person{}, ""},
		{map[string]string{"CURSOR_OTEL_METRICS_USER": "email"}, "dev@acme.com", Person{Email: "dev@acme.com"}, ""},
		{map[string]string{"CURSOR_OTEL_METRICS_USER": "hash", "CURSOR_OTEL_METRICS_USER_SALT": "s3cret"}, "Dev@Acme.com", Person{Hash: hashed}, ""},
		{map[string]string{"CURSOR_OTEL_METRICS_USER": "hash", "CURSOR_OTEL_METRICS_USER_SALT": "s3cret"}, "", Person{}, ""},
		{map[string]string{"CURSOR_OTEL_METRICS_USER": "hash"}, "dev@acme.com", Person{}, "set CURSOR_OTEL_METRICS_USER_SALT"},
		{map[string]string{"CURSOR_OTEL_METRICS_USER": "name"}, "dev@acme.com", Person{}, "write hash, email or off"},
	} {
		l := &loader{getenv: func(k string) string { return tt.env[k] }}
		u := l.metricsUser()
		if got := u.Of(tt.email); got != tt.want {
			t.Errorf("%v, %q: %+v, want %+v", tt.env, tt.email, got, tt.want)
		}
		var said string
		for _, p := range l.problems {
			said += p.Error()
		}
		if tt.problem == "" && said != "" || !strings.Contains(said, tt.problem) || strings.Contains(said, "s3cret") {
			t.Errorf("%v: problems %q, want one saying %q (never the salt)", tt.env, said, tt.problem)
		}
	}
}
