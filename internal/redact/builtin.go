package redact

// builtins are the secret shapes written here, for what gitleaks' token
// shapes do not cover: secrets that are known by what stands around them
// (a header, a variable, a flag, a JSON field, a URL, a command's option)
// rather than by their own form. The package's tests hold an example of
// each. A secret's quote marks may come escaped (\"), as they are inside a
// JSON string. A quoted value ends at its line's end: the rules then stay
// on a line, and run on the lines around their keywords only.
var builtins = []sourceRule{
	{id: "private-key-block", pattern: `(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(.+?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`,
		keywords: []string{"private key"}},
	{id: "authorization-header", pattern: `(?i)\bauthorization[\\"']*\s*[:=]\s*[\\"']*(?:(?:bearer|basic|token|digest|negotiate)\s+)?([^\s"'\\,;]+)`,
		keywords: []string{"authorization"}},
	{id: "bearer-token", pattern: `(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{8,}=*)`, keywords: []string{"bearer"}},
	{id: "cookie-header", pattern: `(?i)\b(?:set-)?cookie[\\"']*\s*:\s*([^\r\n"'\\]+)`, keywords: []string{"cookie"}},
	{id: "url-credentials", pattern: `\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@"'\\]+:([^/\s@"'\\]+)@`, keywords: []string{"://"}},
	// NAME=value where the (upper-case, environment-style) name says secret;
	// not inside a URL (https://user-token:…@host is the URL's).
	{id: "secret-variable", pattern: `(?:^|[^/\w.-])[A-Z0-9_]*(?:TOKEN|SECRET|PASS|PWD|KEY|AUTH|COOKIE|SESSION|CREDENTIAL)[A-Z0-9_]*\s*=\s*("[^"\n]*"|'[^'\n]*'|[^\s"'\\,;]+)`,
		keywords: []string{"token", "secret", "pass", "pwd", "key", "auth", "cookie", "session", "credential"}},
	// key=value or key: value in configuration; not bare "token", which
	// would take max_tokens=100 for a secret.
	{id: "secret-setting", pattern: `(?i)(?:^|[^/\w.-])[a-z0-9_\-.]*(?:password|passwd|secret|api[_\-]?key|access[_\-]?token|auth[_\-]?token|refresh[_\-]?token|private[_\-]?key|session[_\-]?token)[a-z0-9_\-]*\s*[=:]\s*("[^"\n]*"|'[^'\n]*'|[^\s"'\\,;]+)`,
		keywords: []string{"passw", "secret", "api", "token", "private"}},
	{id: "secret-flag", pattern: `(?i)(?:^|\s)--?[a-z0-9\-]*(?:token|secret|password|passwd|api-?key)(?:=|\s+)("[^"\n]*"|'[^'\n]*'|[^\s"'\\]+)`,
		keywords: []string{"token", "secret", "passw", "api"}},
	// A JSON field whose name says secret, plain or escaped inside a JSON
	// string ({\"password\":\"…\"}).
	{id: "secret-json-field", pattern: `(?i)[\\]*"[a-z0-9_\-.]*(?:token|secret|password|passwd|pwd|api_?key|private_?key|credential|cookie|access_?key)[a-z0-9_\-.]*[\\]*"\s*:\s*[\\]*"((?:[^"\\]|\\[^"\\])*)`,
		keywords: []string{"token", "secret", "passw", "pwd", "api", "key", "credential", "cookie"}},
	// Token shapes, broader than gitleaks' exact ones: a key cut short or
	// of a newer format is still masked.
	{id: "github-token", pattern: `\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})`,
		keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
	{id: "gitlab-token", pattern: `\bglpat-[A-Za-z0-9\-_]{20,}`, keywords: []string{"glpat-"}},
	{id: "aws-access-key-id", pattern: `\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`, keywords: []string{"akia", "asia", "abia", "acca"}},
	{id: "sk-api-key", pattern: `\bsk-[A-Za-z0-9_\-]{20,}`, keywords: []string{"sk-"}},
	{id: "stripe-key", pattern: `\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}`, keywords: []string{"_live_", "_test_"}},
	{id: "slack-token", pattern: `\bxox[abposr]-[A-Za-z0-9\-]{10,}`, keywords: []string{"xox"}},
	{id: "google-api-key", pattern: `\bAIza[0-9A-Za-z\-_]{35}`, keywords: []string{"aiza"}},
	{id: "npm-token", pattern: `\bnpm_[A-Za-z0-9]{36}`, keywords: []string{"npm_"}},
	{id: "jwt", pattern: `\beyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}`, keywords: []string{"eyj"}},
	// Credentials on command lines.
	{id: "curl-user", pattern: `\b(?:curl|wget|http|httpie)\b[^\n;|&]*?\s(?:-u|--user)(?:\s+|=)['"]?[^:\s'"]*:([^\s'"]+)`,
		keywords: []string{"curl", "wget", "http"}},
	{id: "mysql-password", pattern: `\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mariadb|mariadb-dump)\b[^\n;|&]*?\s-p([^\s'"]+)`,
		keywords: []string{"mysql", "mariadb"}},
	// Windows' ways to set a variable whose name says secret: PowerShell's
	// $env:name (any case), setx, and .NET's SetEnvironmentVariable.
	{id: "powershell-env-variable", pattern: `(?i)\$env:[a-z0-9_]*(?:token|secret|pass|pwd|key|auth|cookie|session|credential)[a-z0-9_]*\s*=\s*("[^"\n]*"|'[^'\n]*'|[^\s"'\\,;]+)`,
		keywords: []string{"$env:"}},
	{id: "setx-variable", pattern: `(?i)\bsetx\s+(?:/m\s+)?"?[a-z0-9_]*(?:token|secret|pass|pwd|key|auth|cookie|session|credential)[a-z0-9_]*"?\s+("[^"\n]*"|'[^'\n]*'|[^\s"'\\,;]+)`,
		keywords: []string{"setx"}},
	{id: "set-environment-variable", pattern: `(?i)\bSetEnvironmentVariable\(\s*[\\]*["'][a-z0-9_]*(?:token|secret|pass|pwd|key|auth|cookie|session|credential)[a-z0-9_]*[\\]*["']\s*,\s*[\\]*["']((?:[^"'\\\n]|\\[^"'\\])*)`,
		keywords: []string{"setenvironmentvariable"}},
	{id: "registry-login-password", pattern: `\b(?:docker|podman|nerdctl|buildah|skopeo|helm\s+registry|oras)\s+login\b[^\n;|&]*?\s(?:-p|--password)(?:\s+|=)['"]?([^\s'"]+)`,
		keywords: []string{"login"}},
}
