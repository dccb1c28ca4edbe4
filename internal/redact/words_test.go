package redact

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// occurrences is what words.each must find, found the slow way: every
// index of every word.
func occurrences(list []string, text []byte) []string {
	var out []string
	for k, w := range list {
		for at := 0; at+len(w) <= len(text); at++ {
			if bytes.HasPrefix(text[at:], []byte(w)) {
				out = append(out, fmt.Sprintf("%s@%d-%d", list[k], at, at+len(w)))
			}
		}
	}
	slices.Sort(out)
	return out
}

func found(list []string, text []byte) []string {
	var out []string
	newWords(list).each(text, func(k, start, end int) {
		out = append(out, fmt.Sprintf("%s@%d-%d", list[k], start, end))
	})
	slices.Sort(out)
	return out
}

func TestWordsFindsEveryOccurrence(t *testing.T) {
	for _, c := range []struct {
		words []string
		text  string
	}{
		{[]string{"he", "she", "his", "hers"}, "ushers and his shehe"},
		{[]string{"key", "apikey", "api", "y"}, "my apikey=KEY key-api"},
		{[]string{"aa", "aaa", "a"}, "aaaa"},
		{[]string{"token"}, "no match here, tokn toke"},
		{[]string{"\xff\x00", "é"}, "a\xff\x00é\xff"},
	} {
		want := occurrences(c.words, []byte(c.text))
		if got := found(c.words, []byte(c.text)); !slices.Equal(got, want) {
			t.Errorf("words %q in %q:\n got %v\nwant %v", c.words, c.text, got, want)
		}
	}
}

// The keywords gitleaks' rules and the built-in rules have: all found,
// each once, in a text holding each of them.
func TestWordsOfTheRules(t *testing.T) {
	r := New(Options{})
	var list []string
	for _, rule := range r.rules {
		for _, k := range rule.keywords {
			if !slices.Contains(list, k) {
				list = append(list, k)
			}
		}
	}
	if len(list) < 200 {
		t.Fatalf("%d keywords; gitleaks' rules alone have over 200", len(list))
	}
	text := []byte(strings.Join(list, " | "))
	if got, want := found(list, text), occurrences(list, text); !slices.Equal(got, want) {
		t.Errorf("%d occurrences found, want %d", len(got), len(want))
	}
}

func FuzzWords(f *testing.F) {
	f.Add("he\x00she\x00his", []byte("ushers"))
	f.Add("a\x00aa", []byte("aaaaa"))
	f.Fuzz(func(t *testing.T, joined string, text []byte) {
		var list []string
		for _, w := range strings.Split(joined, "\x00") {
			if w != "" && !slices.Contains(list, w) {
				list = append(list, w)
			}
		}
		if len(list) == 0 || len(list) > 64 {
			return
		}
		if got, want := found(list, text), occurrences(list, text); !slices.Equal(got, want) {
			t.Errorf("words %q in %q:\n got %v\nwant %v", list, text, got, want)
		}
	})
}

// The keyword table stays small: it is built at every start of cursor-otel
// and every hook event, on fresh memory (3 MB with a column per byte).
func TestWordsTableSize(t *testing.T) {
	k := New(Options{}).keywords
	if size := len(k.next) * 4; size > 512<<10 {
		t.Errorf("keyword table %d KB (%d states, %d columns), want at most 512 KB", size>>10, len(k.word), k.columns)
	}
}
