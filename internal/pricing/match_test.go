package pricing

import (
	"regexp"
	"strings"
	"testing"
)

func TestAnchoredPrefix(t *testing.T) {
	for _, tc := range []struct {
		pattern, prefix string
		ok              bool
	}{
		{`^gpt-5\.6-luna-\d{4}-\d{2}-\d{2}$`, "gpt-5.6-luna-", true},
		{`^x-ai/grok-4\.3-\d{8}$`, "x-ai/grok-4.3-", true},
		{`^o[134]`, "o", true},
		{`^claude$`, "claude", true},
		{`^ab?c`, "a", true},    // b is optional
		{`^ab*`, "a", true},     // so is a repeated one
		{`^ab{0,2}`, "a", true}, //
		{`^a\.?b`, "a", true},   // an escaped one too
		{`^(?i)gpt`, "", true},  // nothing certain
		{`^gpt|claude`, "", false},
		{`^(?:gpt|o1)-x`, "", false},
		{`(?:mi|code)stral`, "", false},
		{`gpt-4`, "", false},
	} {
		prefix, ok := anchoredPrefix(tc.pattern)
		if prefix != tc.prefix || ok != tc.ok {
			t.Errorf("anchoredPrefix(%q) = %q, %v; want %q, %v", tc.pattern, prefix, ok, tc.prefix, tc.ok)
		}
	}
}

// Every name a snapshot expression matches starts with the prefix read
// from it: the prefix only spares compiling, it never changes a match.
func TestAnchoredPrefixNeverRejectsAMatch(t *testing.T) {
	names := []string{"o1", "o3-mini", "o4-mini-high", "gpt-5.6-luna-2026-01-02", "gpt-5-6-sol-2026-01-02",
		"gpt-5.6-terra-2026-01-02", "gemini-3.5-flash-2", "grok-4.3-20260101", "x-ai/grok-4.5-20260101",
		"codestral-latest", "claude-sonnet-4.5", "claude-4.5-sonnet"}
	var patterns []string
	var walk func(r rule)
	walk = func(r rule) {
		switch r.op {
		case "regex":
			patterns = append(patterns, r.value)
		case "equals", "starts_with":
			names = append(names, strings.ToLower(r.value))
		}
		for _, s := range r.subs {
			walk(s)
		}
	}
	for _, p := range snapshot() {
		walk(p.match)
		for _, m := range p.models {
			walk(m.match)
		}
	}
	if len(patterns) == 0 {
		t.Fatal("the snapshot has no regular expressions to check")
	}
	matched := 0
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		prefix, ok := anchoredPrefix(p)
		for _, n := range names {
			if !re.MatchString(n) {
				continue
			}
			matched++
			if ok && !strings.HasPrefix(n, prefix) {
				t.Errorf("%q matches %q, which does not start with the prefix %q", n, p, prefix)
			}
			if !(rule{op: "regex", value: p}).matches(n) {
				t.Errorf("rule %q no longer matches %q", p, n)
			}
		}
	}
	if matched < len(patterns) {
		t.Errorf("only %d matches for %d expressions: the names do not exercise them", matched, len(patterns))
	}
}
