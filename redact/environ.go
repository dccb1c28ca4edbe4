package redact

import "strings"

// secretNames are the parts of an environment variable's name that say its
// value is a secret.
var secretNames = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "PRIVATE_KEY", "CREDENTIAL"}

// SecretsInEnviron returns the values of the variables in environ
// ("NAME=value" pairs) whose names say they are secrets: CURSOR_API_KEY,
// GITHUB_TOKEN, DB_PASSWORD and the like.
func SecretsInEnviron(environ []string) []string {
	var secrets []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || value == "" {
			continue
		}
		upper := strings.ToUpper(name)
		for _, s := range secretNames {
			if strings.Contains(upper, s) {
				secrets = append(secrets, value)
				break
			}
		}
	}
	return secrets
}
