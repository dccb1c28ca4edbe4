// Package redacttest makes secrets of each shape the redactor knows, for
// the tests that check none is let through: the redactor's own, and
// those of what writes text to disk or exports it.
package redacttest

// Family is a kind of secret the redactor must never let through.
type Family struct {
	Name    string
	Context func(secret string) string // the text around it that makes it one
	Secret  func(b []byte) string      // a secret of the family, made from b
}

// Families are the secret shapes the redactor knows, each in its
// context. The "collector credential" is masked as a known value: the
// redactor must be given it (OTEL_EXPORTER_OTLP_HEADERS).
var Families = []Family{
	{"GitHub token", func(s string) string { return "export GH=" + s }, func(b []byte) string { return "ghp_" + alnum(b, 36) }},
	{"GitLab token", func(s string) string { return "token " + s }, func(b []byte) string { return "glpat-" + alnum(b, 20) }},
	{"AWS access key id", func(s string) string { return "aws_access_key_id = " + s }, func(b []byte) string { return "AKIA" + upper(b, 16) }},
	{"AWS secret access key", func(s string) string { return "echo " + s + " | aws configure" }, func(b []byte) string { return awsLike(b) }},
	{"sk- API key", func(s string) string { return "key " + s }, func(b []byte) string { return "sk-" + alnum(b, 32) }},
	{"Slack token", func(s string) string { return "SLACK " + s }, func(b []byte) string { return "xoxb-" + alnum(b, 24) }},
	{"Stripe key", func(s string) string { return "stripe " + s }, func(b []byte) string { return "sk_live_" + alnum(b, 24) }},
	{"JWT", func(s string) string { return "auth " + s }, func(b []byte) string {
		return "eyJhbGciOiJIUzI1NiJ9.eyJ" + alnum(b, 20) + "." + alnum(b[len(b)/2:], 20)
	}},
	{"private key", func(s string) string {
		return "-----BEGIN RSA PRIVATE KEY-----\n" + s + "\n-----END RSA PRIVATE KEY-----"
	}, func(b []byte) string { return "MIIE" + alnum(b, 40) }},
	{"PASSWORD=", func(s string) string { return "PGPASSWORD=" + s + " psql" }, func(b []byte) string { return alnum(b, 12) }},
	{"bearer token", func(s string) string { return "Authorization: Bearer " + s }, func(b []byte) string { return alnum(b, 24) }},
	{"URL password", func(s string) string { return "git clone https://deploy:" + s + "@github.com/acme/x.git" }, func(b []byte) string { return alnum(b, 12) }},
	{"curl -u", func(s string) string { return "curl -u admin:" + s + " https://x" }, func(b []byte) string { return alnum(b, 12) }},
	{"mysql -p", func(s string) string { return "mysql -uroot -p" + s + " db" }, func(b []byte) string { return alnum(b, 12) }},
	{"docker login -p", func(s string) string { return "docker login -u bot -p " + s + " reg.example.com" }, func(b []byte) string { return alnum(b, 16) }},
	{"cookie", func(s string) string { return "Cookie: session=" + s }, func(b []byte) string { return alnum(b, 16) }},
	{"PowerShell $env:", func(s string) string { return "$env:gh_token = '" + s + "'" }, func(b []byte) string { return alnum(b, 12) }},
	{"setx", func(s string) string { return "setx API_KEY " + s + " /M" }, func(b []byte) string { return alnum(b, 12) }},
	{"SetEnvironmentVariable", func(s string) string { return `[Environment]::SetEnvironmentVariable("MY_SECRET", "` + s + `")` }, func(b []byte) string { return alnum(b, 12) }},
	{"secret JSON field", func(s string) string { return `{"client_secret": "` + s + `"}` }, func(b []byte) string { return alnum(b, 16) }},
	{"collector credential", func(s string) string { return "OTEL_EXPORTER_OTLP_HEADERS=x-api-key=" + s }, func(b []byte) string { return "hcaik_" + alnum(b, 20) }},
}

const alnumChars = "ABCDEFGHJKMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789"

// alnum makes n characters from b, cycling through it; the result is
// never all one character.
func alnum(b []byte, n int) string {
	out := make([]byte, n)
	for i := range out {
		c := byte(i * 7)
		if len(b) > 0 {
			c += b[i%len(b)]
		}
		out[i] = alnumChars[int(c)%len(alnumChars)]
	}
	return string(out)
}

func upper(b []byte, n int) string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	out := make([]byte, n)
	for i := range out {
		c := byte(i * 5)
		if len(b) > 0 {
			c += b[i%len(b)]
		}
		out[i] = chars[int(c)%len(chars)]
	}
	return string(out)
}

// awsLike is 40 characters of base64 shaped like an AWS secret key, with a
// few of b's characters in it.
func awsLike(b []byte) string {
	key := []byte("wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLE12")
	for i := 0; i < len(b) && i < 6; i++ {
		key[(i*7+3)%40] = alnumChars[int(b[i])%len(alnumChars)]
	}
	return string(key)
}
