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

// compileAll compiles the rule's regular expressions, and its subrules'.
func (r rule) compileAll() {
	if r.op == "regex" {
		compiled(r.value)
	}
	for _, s := range r.subs {
		s.compileAll()
	}
}
