package replay

import "strings"

// remembered redacts as redact does, remembering what it made of the short
// strings a recording says again and again (its model, its working
// directory, the commands its tools ran, the ids of its requests): a replay
// of many sessions redacts each such string once. Redaction was a
// noticeable share of a span-dense replay's CPU (docs/performance.md,
// "measured choices"). Not safe for concurrent use: a
// replay's recorder calls it from one goroutine.
type remembered struct {
	redact func(string) string
	seen   map[string]string
}

// What is remembered: strings up to maxRememberedLen bytes (longer ones
// rarely come again), at most maxRemembered of them, forgotten all at once
// when there are more: a few hundred KiB at most.
const (
	maxRemembered    = 2048
	maxRememberedLen = 128
)

func remember(redact func(string) string) func(string) string {
	if redact == nil {
		return nil
	}
	m := &remembered{redact: redact, seen: map[string]string{}}
	return m.Redact
}

func (m *remembered) Redact(s string) string {
	if len(s) > maxRememberedLen {
		return m.redact(s)
	}
	if r, ok := m.seen[s]; ok {
		return r
	}
	r := m.redact(s)
	if len(m.seen) >= maxRemembered {
		clear(m.seen)
	}
	// Copies: s may be a piece of a long string, which the key would keep.
	m.seen[strings.Clone(s)] = strings.Clone(r)
	return r
}
