package main

import (
	"strings"

	"github.com/cursor-otel/cursor-otel/redact"
)

// secretNames are the parts of an environment variable's name that say its
// value is a secret.
var secretNames = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "PRIVATE_KEY", "CREDENTIAL"}

// newRedactor masks the built-in secret shapes, the values of secrets in
// the environment (CURSOR_API_KEY, and any variable whose name says
// secret) and the literals given (an --api-key value).
func newRedactor(environ []string, literals ...string) *redact.Redactor {
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || value == "" {
			continue
		}
		upper := strings.ToUpper(name)
		for _, s := range secretNames {
			if strings.Contains(upper, s) {
				literals = append(literals, value)
				break
			}
		}
	}
	return redact.New(redact.Options{Literals: literals})
}
