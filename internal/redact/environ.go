package redact

import "strings"

// secretNames are the parts of an environment variable's name that say its
// value is a secret.
var secretNames = []string{"TOKEN", "SECRET", "PASS", "PWD", "KEY", "AUTH", "COOKIE", "SESSION", "CREDENTIAL"}

// notSecret are variables whose names hold one of those parts but whose
// values are not secrets: the working directory, sockets, desktop sessions.
var notSecret = map[string]bool{
	"PWD": true, "OLDPWD": true, "SSH_AUTH_SOCK": true, "XAUTHORITY": true,
	"SESSION_MANAGER": true, "DBUS_SESSION_BUS_ADDRESS": true,
	"DESKTOP_SESSION": true, "GDMSESSION": true, "TERM_SESSION_ID": true,
	"SECURITYSESSIONID": true, "KEYTIMEOUT": true,
}

// SecretsInEnviron returns the values of the variables in environ
// ("NAME=value" pairs) whose names say they are secrets: CURSOR_API_KEY,
// GITHUB_TOKEN, DB_PASSWORD, MY_DB_PASS, SIGNING_KEY, REGISTRY_AUTH,
// SESSION_COOKIE and the like.
func SecretsInEnviron(environ []string) []string {
	var secrets []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || value == "" {
			continue
		}
		upper := strings.ToUpper(name)
		if notSecret[upper] || strings.HasPrefix(upper, "XDG_SESSION_") {
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
