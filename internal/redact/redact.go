// Package redact replaces secrets in text with [REDACTED], keeping the rest
// readable: known values (an API key given on the command line, secrets in
// the environment, the collector's credentials), secrets known by what
// stands around them (headers, variables, flags, JSON fields, URLs,
// command-line options), and the token shapes of gitleaks' maintained rule
// set.
package redact

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
)

//go:generate go run ./internal/gitleaksgen -version v8.30.1 -out gitleaks_rules.go

// Mask replaces every secret.
const Mask = "[REDACTED]"

// minLiteral is the shortest known value replaced wherever it appears:
// shorter ones ("1", "true") would blank out ordinary text.
const minLiteral = 6

// Options say what a Redactor redacts besides the built-in shapes.
type Options struct {
	Literals   []string         // exact secret values, masked wherever they appear
	Patterns   []*regexp.Regexp // more shapes; a first group, if any, is kept and the rest of the match masked
	NoBuiltins bool             // for a trusted backend: only Literals and Patterns
}

// Redactor masks secrets in text. It is safe for concurrent use.
type Redactor struct {
	literals *words   // nil without literals
	lits     []string // the literals literals finds
	rules    []*rule
	keywords *words  // the rules' keywords, lower case
	byWord   [][]int // rules by keyword
	always   []int   // rules with no keyword: they run on every text
	global   *rule   // gitleaks' global allowlist, for gitleaks' rules
	fromGL   []bool  // the rule is gitleaks'

	awsScan bool
}

// New builds a Redactor.
func New(opts Options) *Redactor {
	r := &Redactor{}
	// The rules are made in one piece, each from its source where it is
	// (no copy of them all first), and the keyword index is sized for the
	// built-in keywords: growing them, a rule at a time, was most of New's
	// time and of its page faults at every start.
	var groups [][]sourceRule
	if !opts.NoBuiltins {
		groups = [][]sourceRule{builtins, gitleaksRules}
		r.global = &rule{sourceRule: sourceRule{id: "global", pattern: "^$", allow: gitleaksAllowed}}
		r.awsScan = true
	}
	var patterns []sourceRule
	for _, p := range opts.Patterns {
		patterns = append(patterns, sourceRule{id: "pattern", pattern: p.String(), keepFirst: p.NumSubexp() > 0})
	}
	groups = append(groups, patterns)
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	if !opts.NoBuiltins {
		r.fromGL = make([]bool, len(builtins)+len(gitleaksRules))
		for i := len(builtins); i < len(r.fromGL); i++ {
			r.fromGL[i] = true
		}
	}
	keys := make([]string, 0, len(builtinWordKeys))
	index := make(map[string]int, len(builtinWordKeys))
	r.byWord = make([][]int, 0, len(builtinWordKeys))
	slab := make([]rule, n)
	r.rules = make([]*rule, n)
	i := 0
	for _, g := range groups {
		for j := range g {
			s := &g[j]
			slab[i].sourceRule = *s
			r.rules[i] = &slab[i]
			if len(s.keywords) == 0 {
				r.always = append(r.always, i)
			}
			for _, w := range s.keywords {
				k, ok := index[w]
				if !ok {
					k = len(keys)
					index[w] = k
					keys = append(keys, w)
					r.byWord = append(r.byWord, nil)
				}
				r.byWord[k] = append(r.byWord[k], i)
			}
			i++
		}
	}
	switch {
	case slices.Equal(keys, builtinWordKeys):
		r.keywords = &builtinWords // read only: shared
	case len(keys) > 0:
		r.keywords = newWords(keys)
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
	if len(lits) > 0 {
		r.literals, r.lits = newWords(lits), lits
	}
	return r
}

// Except is r without the known secret values that are the identifiers
// given (a conversation's id kept in SESSION_TOKEN, say): in text they
// are masked only where another rule finds a secret. r itself when no
// identifier is one of its values.
func (r *Redactor) Except(identifiers ...string) *Redactor {
	keep := slices.DeleteFunc(slices.Clone(r.lits), func(l string) bool { return slices.Contains(identifiers, l) })
	if len(keep) == len(r.lits) {
		return r
	}
	c := *r
	c.literals, c.lits = nil, keep
	if len(keep) > 0 {
		c.literals = newWords(keep)
	}
	return &c
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
	var spans []span
	if r.literals != nil {
		r.literals.each([]byte(s), func(_, start, end int) {
			spans = append(spans, span{start, end})
		})
	}
	// The rules read a view of the text where the escapes of a line break
	// or a tab inside a JSON string (\n, \t, \r) are blanks of the same
	// length: there they separate words as the characters they stand for
	// do, and positions stay the text's.
	view := unescaped(s)
	b := []byte(view)
	for i, windows := range r.windows(b) {
		var global *rule
		if i < len(r.fromGL) && r.fromGL[i] {
			global = r.global
		}
		for _, w := range windows {
			var cut bool
			spans, cut = r.rules[i].find(view[w.start:w.end], w.start, spans, global)
			if cut && w.end < len(view) {
				// A match reached the window's end: it may go on past it.
				spans, _ = r.rules[i].find(view[w.start:], w.start, spans, global)
			}
		}
	}
	if r.awsScan {
		spans = awsSecretKeys(view, spans)
	}
	return mask(s, spans)
}

// unescaped is s with each escape of a line break or a tab (\n, \t, \r)
// as blanks: the backslashes and the letter. A run of backslashes counts
// too: JSON inside a JSON string (a tool's arguments in an event) writes
// a line break as \\n, and the words on either side are still apart.
func unescaped(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		j := i
		for j < len(b) && b[j] == '\\' {
			j++
		}
		if j < len(b) && (b[j] == 'n' || b[j] == 't' || b[j] == 'r') {
			for k := i; k <= j; k++ {
				b[k] = ' '
			}
		}
		i = j
	}
	return string(b)
}

// Around each keyword a rule's match is looked for within this far: a
// secret follows its keyword (a value after a name, a token after its
// prefix) or comes just before it. A rule whose matches stay on a line or
// two (most) looks only in the line that holds the keyword and the line
// after it (a YAML value on the next line). A match that reaches a
// window's end is looked for again in the rest of the text (a private key
// block runs over many lines).
const (
	windowBefore = 256
	windowAfter  = 1024
)

// window is where a rule's match holding the keyword at [start, end) of
// b is looked for; lines cuts it to the keyword's line and the next.
func window(b []byte, start, end int, lines bool) span {
	from, to := max(start-windowBefore, 0), min(end+windowAfter, len(b))
	if !lines {
		return span{from, to}
	}
	if nl := bytes.LastIndexByte(b[from:start], '\n'); nl >= 0 {
		from += nl + 1
	}
	if nl := bytes.IndexByte(b[end:to], '\n'); nl >= 0 {
		if next := bytes.IndexByte(b[end+nl+1:to], '\n'); next >= 0 {
			to = end + nl + 1 + next + 1
		}
	}
	return span{from, to}
}

// windows says, for each rule, where to look for its matches: around its
// keywords (in any case), or everywhere for a rule without keywords. b is
// the text, lowered here in place of ASCII letters only: keywords are
// ASCII, and positions stay those of the text. Running a rule's regular
// expression on windows rather than the whole text keeps the cost of a
// keyword that occurs (key, token, auth are common words) to the text
// around it.
func (r *Redactor) windows(b []byte) map[int][]span {
	out := map[int][]span{}
	for _, i := range r.always {
		out[i] = []span{{0, len(b)}}
	}
	if r.keywords == nil {
		return out
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	r.keywords.each(b, func(word, start, end int) {
		for _, i := range r.byWord[word] {
			r.rules[i].compile()
			w := window(b, start, end, !r.rules[i].multiLine)
			ws := out[i]
			if k := len(ws) - 1; k >= 0 && ws[k].end >= w.start {
				if ws[k].start == 0 && ws[k].end == len(b) {
					continue // everywhere already
				}
				ws[k].end = max(ws[k].end, w.end)
				continue
			}
			out[i] = append(ws, w)
		}
	})
	return out
}

// mask replaces the spans, merged where they overlap or touch, with Mask.
// A span's ends fall on rune boundaries (a regular expression's match in
// valid UTF-8 does, and so does a valid literal's), so the result is
// valid UTF-8.
func mask(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var out strings.Builder
	out.Grow(len(s))
	at := 0
	for i := 0; i < len(spans); {
		start, end := spans[i].start, spans[i].end
		for i++; i < len(spans) && spans[i].start <= end; i++ {
			end = max(end, spans[i].end)
		}
		if start < at {
			start = at
		}
		out.WriteString(s[at:start])
		out.WriteString(Mask)
		at = end
	}
	out.WriteString(s[at:])
	return out.String()
}
