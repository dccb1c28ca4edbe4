package redact

import (
	"math"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
)

// sourceRule is a secret shape as written down: by hand (builtin.go) or by
// gitleaks' maintainers (gitleaks_rules.go).
type sourceRule struct {
	id          string
	pattern     string
	secretGroup int      // the group that is the secret; 0: the first non-empty group, else the whole match
	entropy     float64  // a secret must have more Shannon entropy than this (bits per byte); 0: any
	keywords    []string // lower case; a match contains one, so text holding none is not scanned
	allow       []allowlist
	check       func(secret string) bool // a further test the secret must pass
	keepFirst   bool                     // the first group says what the secret is and is kept; the rest of the match is the secret
}

// allowlist says what is not a secret after all (gitleaks' rule
// allowlists): a secret (or, with target "match", the whole match)
// matching one of the regexes, or a secret holding one of the stopwords.
// With all, both must hold.
type allowlist struct {
	regexes   []string
	stopwords []string
	target    string // "", "secret", "match" or "line"
	all       bool
}

// rule is a sourceRule ready to run. Its expressions are compiled when
// first needed: of the hundreds of rules, a run needs a few, and
// compiling them all would cost every start of cursor-otel.
type rule struct {
	sourceRule
	once      sync.Once
	re        *regexp.Regexp
	allowRE   [][]*regexp.Regexp
	multiLine bool // a match may run over many lines
}

func (r *rule) compile() {
	r.once.Do(func() {
		r.re = regexp.MustCompile(r.pattern)
		if re, err := syntax.Parse(r.pattern, syntax.Perl); err == nil {
			r.multiLine = spansLines(re)
		}
		r.allowRE = make([][]*regexp.Regexp, len(r.allow))
		for i, a := range r.allow {
			for _, p := range a.regexes {
				r.allowRE[i] = append(r.allowRE[i], regexp.MustCompile(p))
			}
		}
	})
}

// spansLines says a regular expression can match across many lines: it
// holds a dot that matches a line break ((?s).), or a repetition of more
// than a few of a class that holds one and most else ([\s\S], [^"]), as a
// block of text does. A few blanks or one class of them (\s*) do not:
// they join a name to its value.
func spansLines(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpAnyChar:
		return true
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		if re.Op != syntax.OpRepeat || re.Max < 0 || re.Max > 16 {
			if sub := re.Sub[0]; sub.Op == syntax.OpCharClass && wideWithNewline(sub.Rune) {
				return true
			}
		}
	}
	for _, sub := range re.Sub {
		if spansLines(sub) {
			return true
		}
	}
	return false
}

// wideWithNewline says a character class holds a line break and more than
// the ASCII blanks and punctuation.
func wideWithNewline(ranges []rune) bool {
	newline, n := false, 0
	for i := 0; i+1 < len(ranges); i += 2 {
		newline = newline || ranges[i] <= '\n' && '\n' <= ranges[i+1]
		n += int(ranges[i+1]-ranges[i]) + 1
	}
	return newline && n > 128
}

// span is a part of a text to mask: [start, end).
type span struct{ start, end int }

// find appends the spans of the secrets the rule finds in text, and says
// whether a match reached the end of text (a window of a larger text may
// have cut it). Spans are offset by off.
func (r *rule) find(text string, off int, spans []span, global *rule) ([]span, bool) {
	r.compile()
	atEnd := false
	for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
		atEnd = atEnd || m[1] == len(text)
		s, e := secretSpan(m, r.secretGroup)
		if r.keepFirst {
			e = m[1]
			if len(m) > 3 && m[3] >= 0 {
				s = m[3]
			} else {
				s = m[0]
			}
		}
		if s < 0 || e <= s {
			continue
		}
		secret := text[s:e]
		if r.entropy > 0 && entropy(secret) <= r.entropy {
			continue
		}
		if r.check != nil && !r.check(secret) {
			continue
		}
		if r.allowed(secret, text[m[0]:m[1]], line(text, s)) || (global != nil && global.allowed(secret, text[m[0]:m[1]], line(text, s))) {
			continue
		}
		spans = append(spans, span{off + s, off + e})
	}
	return spans, atEnd
}

// secretSpan is where the secret is in a match (FindSubmatchIndex's): its
// group, or the first non-empty one, or the whole match (gitleaks' way).
func secretSpan(m []int, group int) (int, int) {
	if group > 0 {
		if 2*group+1 < len(m) {
			return m[2*group], m[2*group+1]
		}
		return -1, -1
	}
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
			return m[2*g], m[2*g+1]
		}
	}
	return m[0], m[1]
}

func (r *rule) allowed(secret, match, line string) bool {
	r.compile()
	for i, a := range r.allow {
		target := secret
		switch a.target {
		case "match":
			target = match
		case "line":
			target = line
		}
		byRegex := false
		for _, re := range r.allowRE[i] {
			if re.MatchString(target) {
				byRegex = true
				break
			}
		}
		byWord := false
		if len(a.stopwords) > 0 {
			lower := strings.ToLower(secret)
			for _, w := range a.stopwords {
				if strings.Contains(lower, w) {
					byWord = true
					break
				}
			}
		}
		switch {
		case a.all && len(a.regexes) > 0 && len(a.stopwords) > 0:
			if byRegex && byWord {
				return true
			}
		case byRegex || byWord:
			return true
		}
	}
	return false
}

// line is the line of text that holds position i.
func line(text string, i int) string {
	start := strings.LastIndexByte(text[:i], '\n') + 1
	end := strings.IndexByte(text[i:], '\n')
	if end < 0 {
		return text[start:]
	}
	return text[start : i+end]
}

// entropy is s's Shannon entropy in bits per byte, as gitleaks measures it.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	var h float64
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
