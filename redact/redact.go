// Package redact replaces secrets in text with [REDACTED], keeping the rest
// readable: known values (an API key given on the command line, secrets in
// the environment) and well-known token shapes.
package redact

import (
	"regexp"
	"slices"
	"strings"
)

// Mask replaces every secret.
const Mask = "[REDACTED]"

// minLiteral is the shortest known value replaced wherever it appears:
// shorter ones ("1", "true") would blank out ordinary text.
const minLiteral = 6

// rule is one secret shape and what replaces it; "${1}" keeps the part
// that says what the secret is (a header or variable name). A match always
// contains one of keywords (compared in lower case when fold is set): text
// holding none of them is not scanned, which keeps ordinary text at memchr
// speed instead of the regular-expression engine's.
type rule struct {
	name     string
	re       *regexp.Regexp
	repl     string
	keywords []string
	fold     bool
}

const keepName = "${1}" + Mask

// builtins are the secret shapes redacted unless turned off; the package
// tests hold an example of each. The rules for NAME=value, key: value and
// --flag value take a value that is already [REDACTED] as it is, so that a
// secret masked by an earlier rule (https://user:[REDACTED]@host/path) does
// not take the rest of the text with it.
var builtins = []rule{
	{"private key block", regexp.MustCompile(`(?s)(-----BEGIN [A-Z ]*PRIVATE KEY-----).*?(?:-----END [A-Z ]*PRIVATE KEY-----|\z)`), keepName,
		[]string{"PRIVATE KEY-----"}, false},
	{"Authorization header", regexp.MustCompile(`(?i)(\bauthorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest)\s+)?)[^\s"',;]+`), keepName,
		[]string{"authorization"}, true},
	{"bearer token", regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9\-._~+/]{8,}=*`), keepName,
		[]string{"bearer"}, true},
	{"URL credentials", regexp.MustCompile(`(\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]+:)[^/\s@]+@`), "${1}" + Mask + "@",
		[]string{"://"}, false},
	{"GitHub token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})`), Mask,
		[]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, false},
	{"GitLab token", regexp.MustCompile(`\bglpat-[A-Za-z0-9\-_]{20,}`), Mask, []string{"glpat-"}, false},
	{"AWS access key id", regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`), Mask,
		[]string{"AKIA", "ASIA", "ABIA", "ACCA"}, false},
	{"OpenAI/Anthropic-style key", regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{20,}`), Mask, []string{"sk-"}, false},
	{"Stripe-style key", regexp.MustCompile(`\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}`), Mask, []string{"_live_", "_test_"}, false},
	{"Slack token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9\-]{10,}`), Mask, []string{"xox"}, false},
	{"Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z\-_]{35}`), Mask, []string{"AIza"}, false},
	{"npm token", regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}`), Mask, []string{"npm_"}, false},
	{"JWT", regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}`), Mask, []string{"eyJ"}, false},
	// NAME=value where the (upper-case, environment-style) name says secret.
	{"secret variable", regexp.MustCompile(`\b([A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)[A-Z0-9_]*\s*=\s*)(?:"[^"]*"|'[^']*'|\[REDACTED\]|[^\s"',;]+)`), keepName,
		[]string{"TOKEN", "SECRET", "PASSW", "API_KEY", "APIKEY", "ACCESS_KEY", "PRIVATE_KEY", "CREDENTIAL"}, false},
	// key=value or key: value in configuration; not bare "token", which
	// would take max_tokens=100 for a secret.
	{"secret setting", regexp.MustCompile(`(?i)\b([a-z0-9_\-]*(?:password|passwd|secret|api[_\-]?key|access[_\-]?token|auth[_\-]?token|refresh[_\-]?token|private[_\-]?key)[a-z0-9_\-]*\s*[=:]\s*)(?:"[^"]*"|'[^']*'|\[REDACTED\]|[^\s"',;]+)`), keepName,
		[]string{"passw", "secret", "api", "token", "private"}, true},
	{"secret flag", regexp.MustCompile(`(?i)((?:^|\s)--?[a-z0-9\-]*(?:token|secret|password|passwd|api-?key)(?:=|\s+))(?:"[^"]*"|'[^']*'|\[REDACTED\]|[^\s"']+)`), keepName,
		[]string{"token", "secret", "passw", "api"}, true},
	{"secret JSON field", regexp.MustCompile(`(?i)("[a-z0-9_\-]*(?:token|secret|password|passwd|api_?key)[a-z0-9_\-]*"\s*:\s*")[^"]*`), keepName,
		[]string{"token", "secret", "passw", "api"}, true},
}

// Options say what a Redactor redacts besides the built-in shapes.
type Options struct {
	Literals   []string         // exact secret values, masked wherever they appear
	Patterns   []*regexp.Regexp // more shapes; the first group, if any, is kept
	NoBuiltins bool             // for a trusted backend: only Literals and Patterns
}

// Redactor masks secrets in text. It is safe for concurrent use.
type Redactor struct {
	literals *strings.Replacer
	rules    []rule
}

// New builds a Redactor.
func New(opts Options) *Redactor {
	r := &Redactor{}
	if !opts.NoBuiltins {
		r.rules = slices.Clone(builtins)
	}
	for _, p := range opts.Patterns {
		repl := Mask
		if p.NumSubexp() > 0 {
			repl = keepName
		}
		r.rules = append(r.rules, rule{name: "pattern", re: p, repl: repl})
	}
	var lits []string
	for _, l := range opts.Literals {
		// Text is made valid UTF-8 before it is searched, so a value is
		// too: a secret's invalid bytes are then found as they read.
		l = strings.ToValidUTF8(l, "\ufffd")
		if len(l) >= minLiteral && !strings.Contains(Mask, l) && !slices.Contains(lits, l) {
			lits = append(lits, l)
		}
	}
	// Longest first, so a secret that contains another is masked whole.
	slices.SortFunc(lits, func(a, b string) int { return len(b) - len(a) })
	if len(lits) > 0 {
		pairs := make([]string, 0, 2*len(lits))
		for _, l := range lits {
			pairs = append(pairs, l, Mask)
		}
		r.literals = strings.NewReplacer(pairs...)
	}
	return r
}

// Redact returns s with every secret masked. The result is valid UTF-8.
// Invalid bytes become U+FFFD before anything is searched, not after: a
// secret must be masked in the text as it will be read, or redacting the
// result again would find what the first pass missed.
func (r *Redactor) Redact(s string) string {
	if s == "" {
		return s
	}
	s = strings.ToValidUTF8(s, "\ufffd")
	if r.literals != nil {
		s = r.literals.Replace(s)
	}
	lower := ""
	for _, ru := range r.rules {
		if len(ru.keywords) > 0 {
			text := s
			if ru.fold {
				if lower == "" {
					lower = strings.ToLower(s)
				}
				text = lower
			}
			if !containsAny(text, ru.keywords) {
				continue
			}
		}
		if out := ru.re.ReplaceAllString(s, ru.repl); out != s {
			s, lower = out, ""
		}
	}
	// A valid value found in valid text starts and ends on rune
	// boundaries, and so does a regular-expression match: s stays valid.
	return s
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// Names lists the built-in shapes, for documentation and help text.
func Names() []string {
	names := make([]string, len(builtins))
	for i, b := range builtins {
		names[i] = b.name
	}
	return names
}
