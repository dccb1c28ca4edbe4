package redact

import "strings"

// secretNames are the parts of an environment variable's name that say its
// value is a secret. SESSION is not one of them: SESSION_ID and
// CURSOR_SESSION_ID hold the conversation a CI script resumes, an
// identifier every span carries; a session's secret says so in another
// part of its name (SESSION_TOKEN, SESSION_KEY, SESSION_COOKIE).
var secretNames = []string{"TOKEN", "SECRET", "PASS", "PWD", "KEY", "AUTH", "COOKIE", "CREDENTIAL"}

// notSecret are variables whose names hold one of those parts but whose
// values are not secrets: the working directory, sockets, timeouts.
var notSecret = map[string]bool{
	"PWD": true, "OLDPWD": true, "SSH_AUTH_SOCK": true, "XAUTHORITY": true, "KEYTIMEOUT": true,
}

// SecretsInEnviron returns the values of the variables in environ
// ("NAME=value" pairs) whose names say they are secrets: CURSOR_API_KEY,
// GITHUB_TOKEN, DB_PASSWORD, MY_DB_PASS, SIGNING_KEY, REGISTRY_AUTH,
// SESSION_COOKIE and the like; not SESSION_ID.
func SecretsInEnviron(environ []string) []string {
	var secrets []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || value == "" {
			continue
		}
		upper := strings.ToUpper(name)
		if notSecret[upper] {
			continue
		}
		for _, s := range secretNames {
			if strings.Contains(upper, s) {
				secrets = append(secrets, value)
				break
			}
		}
	}
	return secrets
}
