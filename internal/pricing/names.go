package pricing

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The patterns below are compiled when first used: only a session that
// reports usage is priced, and a start (each hook event is one) need not
// pay for them.

// suffixes are what cursor-agent adds to a model's name for a setting of
// it (reasoning effort, thinking, Max mode, a long context, a date) rather
// than another model; the price is the model's.
var suffixes = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`-(thinking|xhigh|high|medium|low|minimal|max|fast|1m|\d{8}|\d{4}-\d{2}-\d{2})$`)
})

// claudeDisplay is a Claude name as Cursor shows it, version before family
// (claude-4.6-sonnet), where price tables put the family first.
var claudeDisplay = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^claude-(\d[\d.-]*?)-(opus|sonnet|haiku|fable)(-.*)?$`)
})

// bareFamily is a Claude family and version without the maker (sonnet-4).
var bareFamily = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(opus|sonnet|haiku|fable)-(.+)$`) })

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
		cut := suffixes().ReplaceAllString(bare, "")
		if cut == bare {
			break
		}
		bare = cut
		add(bare)
	}
	for _, n := range slices.Clone(out) {
		if m := bareFamily().FindStringSubmatch(n); m != nil {
			n = "claude-" + m[1] + "-" + m[2]
			add(n)
		}
		if m := claudeDisplay().FindStringSubmatch(n); m != nil {
			add("claude-" + m[2] + "-" + m[1] + m[3])
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
