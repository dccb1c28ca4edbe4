package pricing

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The regular expressions names.go's shapes were, kept as their oracle.
var (
	suffixesRE      = regexp.MustCompile(`-(thinking|xhigh|high|medium|low|minimal|max|fast|1m|\d{8}|\d{4}-\d{2}-\d{2})$`)
	claudeDisplayRE = regexp.MustCompile(`^claude-(\d[\d.-]*?)-(opus|sonnet|haiku|fable)(-.*)?$`)
	bareFamilyRE    = regexp.MustCompile(`^(opus|sonnet|haiku|fable)-(.+)$`)
)

// shapeNames are names to hold the shapes to their expressions: every
// snapshot model's name and its parts, Cursor's spellings, and near
// misses of each shape.
func shapeNames() []string {
	names := []string{"", "-", "--", "-high", "x-high", "a-xhigh", "a-xhig", "a-1m", "a-1M", "a-20250514", "a-2025051",
		"a-202505141", "a-2025-05-14", "a-2025-5-14", "2025-05-14", "-2025-05-14", "a-2025-05-14-high", "a-high-2025-05-14",
		"a-high-thinking", "a-thinking-high", "claude-4.6-sonnet", "claude-4.5-sonnet-thinking", "claude-4-opus-high-thinking",
		"claude-3-5-haiku-20241022", "claude-3.7-sonnet-max", "claude-x-sonnet", "claude-4-sonnetx", "claude-4-sonnet-",
		"claude-4--sonnet", "claude-4.-opus", "claude-4-5-opus-opus", "claude-4-opus-sonnet", "claude-4-fable", "claude-",
		"claude-4", "claude-4-", "claude-4-opus\nx", "claude-4-opus-\nx", "sonnet-4", "sonnet-", "sonnet-4.5-thinking",
		"opus", "opus-4\n", "haiku-x", "fable-1", "sonnet4", "gpt-5.1-codex-high", "composer-2.5-fast", "o3-mini-high",
		"gemini-3-pro-preview", "a-١٢٣٤٥٦٧٨", "claude-٤-opus"}
	var walk func(r rule)
	walk = func(r rule) {
		if r.op != "regex" && r.value != "" {
			names = append(names, strings.ToLower(r.value))
		}
		for _, s := range r.subs {
			walk(s)
		}
	}
	for _, p := range snapshot() {
		walk(p.match)
		for _, m := range p.models {
			names = append(names, m.id)
			walk(m.match)
		}
	}
	for _, n := range slices.Clone(names) {
		names = append(names, n+"-thinking", n+"-20250514", n+"-2025-05-14", "claude-4.5-"+n, "claude-"+n, n+"-sonnet")
	}
	return names
}

func TestNameShapesAreTheirExpressions(t *testing.T) {
	for _, n := range shapeNames() {
		checkShapes(t, n)
	}
}

func FuzzNameShapes(f *testing.F) {
	for _, n := range shapeNames()[:60] {
		f.Add(n)
	}
	f.Fuzz(checkShapes)
}

// checkShapes holds each shape to its expression on n.
func checkShapes(t *testing.T, n string) {
	want := suffixesRE.ReplaceAllString(n, "")
	if got, ok := cutSetting(n); got != want || ok != (want != n) {
		t.Errorf("cutSetting(%q) = %q, %v; the expression gives %q", n, got, ok, want)
	}
	m := bareFamilyRE.FindStringSubmatch(n)
	if f, v, ok := bareFamily(n); ok != (m != nil) || (ok && (f != m[1] || v != m[2])) {
		t.Errorf("bareFamily(%q) = %q, %q, %v; the expression gives %q", n, f, v, ok, m)
	}
	m = claudeDisplayRE.FindStringSubmatch(n)
	if v, f, r, ok := claudeDisplay(n); ok != (m != nil) || (ok && (v != m[1] || f != m[2] || r != m[3])) {
		t.Errorf("claudeDisplay(%q) = %q, %q, %q, %v; the expression gives %q", n, v, f, r, ok, m)
	}
}
