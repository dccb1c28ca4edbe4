package pricing

import (
	"slices"
	"strings"
)

// The three shapes below were regular expressions (kept in the tests,
// which hold these to them); read by hand they cost nothing to set up,
// where compiling them cost every priced run time and a stack of its own
// (docs/performance.md, "measured choices").

// families are Claude's model families, as the price tables name them.
var families = []string{"opus", "sonnet", "haiku", "fable"}

// settingWords are what cursor-agent adds to a model's name for a setting
// of it (reasoning effort, thinking, Max mode, a long context) rather than
// another model; the price is the model's.
var settingWords = []string{"thinking", "xhigh", "high", "medium", "low", "minimal", "max", "fast", "1m"}

// cutSetting is name without its last setting (a word of settingWords, a
// date as 20250514 or 2025-05-14, after a dash), and whether it had one:
// -(thinking|xhigh|high|medium|low|minimal|max|fast|1m|\d{8}|\d{4}-\d{2}-\d{2})$.
func cutSetting(name string) (string, bool) {
	if n := len(name); n >= 11 && name[n-11] == '-' && digits(name[n-10:n-6]) && name[n-6] == '-' &&
		digits(name[n-5:n-3]) && name[n-3] == '-' && digits(name[n-2:]) {
		return name[:n-11], true
	}
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name, false
	}
	if tail := name[i+1:]; slices.Contains(settingWords, tail) || (len(tail) == 8 && digits(tail)) {
		return name[:i], true
	}
	return name, false
}

// bareFamily splits a Claude family and version without the maker
// (sonnet-4): ^(opus|sonnet|haiku|fable)-(.+)$.
func bareFamily(name string) (family, version string, ok bool) {
	for _, f := range families {
		if rest, found := strings.CutPrefix(name, f+"-"); found && rest != "" && !strings.Contains(rest, "\n") {
			return f, rest, true
		}
	}
	return "", "", false
}

// claudeDisplay splits a Claude name as Cursor shows it, version before
// family (claude-4.6-sonnet, claude-4.5-sonnet-thinking), where price
// tables put the family first:
// ^claude-(\d[\d.-]*?)-(opus|sonnet|haiku|fable)(-.*)?$, the shortest
// version that leaves a family and then nothing or a dash.
func claudeDisplay(name string) (version, family, rest string, ok bool) {
	s, found := strings.CutPrefix(name, "claude-")
	if !found || s == "" || !digits(s[:1]) {
		return "", "", "", false
	}
	for j := 1; j < len(s) && (digits(s[j-1:j]) || s[j-1] == '.' || s[j-1] == '-'); j++ {
		for _, f := range families {
			after, found := strings.CutPrefix(s[j:], "-"+f)
			if found && (after == "" || after[0] == '-') && !strings.Contains(after, "\n") {
				return s[:j], f, after, true
			}
		}
	}
	return "", "", "", false
}

// digits says s is all ASCII digits (and not empty).
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Candidates are the names a model may be listed under, most specific
// first: the name as cursor-agent prints it ("Claude 4.6 Sonnet Thinking",
// "GPT-5.1 Codex High", "composer-2.5-fast", "sonnet-4") in lower case with
// dashes for blanks, then without the settings it names, then with a
// Claude family before its version, last as a preview.
func Candidates(model string) []string {
	name := spelling(model)
	if name == "" {
		return nil
	}
	out := []string{name}
	add := func(n string) {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	bare := name
	for {
		cut, ok := cutSetting(bare)
		if !ok {
			break
		}
		bare = cut
		add(bare)
	}
	for _, n := range slices.Clone(out) {
		if family, version, ok := bareFamily(n); ok {
			n = "claude-" + family + "-" + version
			add(n)
		}
		if version, family, rest, ok := claudeDisplay(n); ok {
			add("claude-" + family + "-" + version + rest)
		}
	}
	// Cursor shows a preview model under its plain name (Gemini 3 Pro).
	add(bare + "-preview")
	return out
}

// spelling is a name with case and blanks aside: lower case, dashes for
// blanks and underscores, no parentheses, no dashes doubled or at either
// end. "Composer 2.5", "composer-2.5" and " COMPOSER  2.5" are one name.
func spelling(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	name = strings.Join(strings.Fields(name), "-")
	name = strings.Trim(strings.NewReplacer("(", "", ")", "", "_", "-").Replace(name), "-")
	for strings.Contains(name, "--") {
		name = strings.ReplaceAll(name, "--", "-")
	}
	return name
}
