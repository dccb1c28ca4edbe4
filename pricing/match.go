package pricing

import (
	"regexp"
	"strings"
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
		// Compiled each time: a handful of models have one, and a
		// table looks each name up once (quoteCache).
		re, err := regexp.Compile(r.value)
		return err == nil && re.MatchString(name)
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
