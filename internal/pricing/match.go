package pricing

import (
	"regexp"
	"strings"
	"sync"
)

// rule is one of genai-prices' match clauses: equals, starts_with,
// ends_with, contains, regex, or, and; the zero rule matches nothing. Names
// are compared in lower case.
type rule struct {
	op    string
	value string
	subs  []rule
}

func (r rule) matches(name string) bool {
	v := strings.ToLower(r.value)
	switch r.op {
	case "equals":
		return name == v
	case "starts_with":
		return strings.HasPrefix(name, v)
	case "ends_with":
		return strings.HasSuffix(name, v)
	case "contains":
		return strings.Contains(name, v)
	case "regex":
		if prefix, ok := anchoredPrefix(r.value); ok && !strings.HasPrefix(name, prefix) {
			return false // no need to compile it: most names are not of its maker's
		}
		re := compiled(r.value)
		return re != nil && re.MatchString(name)
	case "or":
		for _, s := range r.subs {
			if s.matches(name) {
				return true
			}
		}
	case "and":
		for _, s := range r.subs {
			if !s.matches(name) {
				return false
			}
		}
		return len(r.subs) > 0
	}
	return false
}

// regexps are the snapshot's regular expressions, compiled once each: a
// lookup that finds nothing among the providers that claim a name tries
// every model of the others, each of its spellings in turn (see
// Candidates), and compiling a dozen expressions for each cost more than
// the rest of the lookup.
var regexps sync.Map // pattern -> *regexp.Regexp, nil for one that does not compile

// compiled is pattern compiled, nil if it does not compile.
func compiled(pattern string) *regexp.Regexp {
	if re, ok := regexps.Load(pattern); ok {
		return re.(*regexp.Regexp)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		re = nil
	}
	regexps.Store(pattern, re)
	return re
}

// anchoredPrefix is the literal text every match of pattern starts with,
// when pattern is anchored at the start (^gpt-5\.6-luna-\d{4}: "gpt-5.6-luna-"),
// read from the pattern itself: a name without it is no match, and its
// expression need not be compiled (compiling the dozen a lookup tries
// costs time and page faults: docs/performance.md, "measured choices"). ok is
// false when nothing can be said:
// not anchored, or an alternative anywhere (^a|b), which could match
// without the prefix.
func anchoredPrefix(pattern string) (prefix string, ok bool) {
	rest, anchored := strings.CutPrefix(pattern, "^")
	if !anchored || strings.Contains(pattern, "|") {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		var lit byte
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '/', c == ':', c == '@':
			lit = c
		case c == '\\' && i+1 < len(rest) && strings.IndexByte(".-/_:@+*?()[]{}", rest[i+1]) >= 0:
			i++
			lit = rest[i]
		default:
			return b.String(), true
		}
		if i+1 < len(rest) && strings.IndexByte("?*{+", rest[i+1]) >= 0 {
			// A repeated or optional literal: what comes before it is
			// certain, it is not.
			return b.String(), true
		}
		b.WriteByte(lit)
	}
	return b.String(), true
}
