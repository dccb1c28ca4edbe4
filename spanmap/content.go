package spanmap

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultMaxContent is how much of one captured value is kept: far below
// the 4 MiB a receiver accepts in one message, however many values a batch
// holds.
const DefaultMaxContent = 16 << 10

// maxMessage bounds messages recorded without content capture: errors and
// stderr, which say what went wrong but may be long.
const maxMessage = 1 << 10

// redactMargin is how far past the limit a value is kept while it is
// redacted, so that a secret straddling the cut is seen whole (a 4096-bit
// RSA key block is 3.2 KiB).
const redactMargin = 8 << 10

// text prepares a string from the stream for export: cut near max bytes,
// redacted, then cut to max at a rune boundary. Cutting first keeps a
// 5 MB tool output from being scanned to keep 16 KiB of it.
func (r *Recorder) text(s string, max int) string {
	if s == "" {
		return ""
	}
	dropped := 0
	if limit := max + redactMargin; len(s) > limit {
		s, dropped = s[:limit], len(s)-limit
	}
	if r.opts.Redact != nil {
		s = r.opts.Redact(s)
	}
	return truncate(s, max, dropped)
}

// truncate cuts s to at most max bytes of valid UTF-8, saying how much was
// dropped, counting dropped bytes already cut from s.
func truncate(s string, max, dropped int) string {
	if len(s) <= max && dropped == 0 {
		return strings.ToValidUTF8(s, "\ufffd")
	}
	cut := min(max, len(s))
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.ToValidUTF8(s[:cut], "\ufffd") + "…[" + strconv.Itoa(len(s)-cut+dropped) + " bytes truncated]"
}

// boundedText collects text up to a limit, counting what it drops.
type boundedText struct {
	b       strings.Builder
	max     int
	dropped int
}

func (t *boundedText) add(s string) {
	if room := t.max - t.b.Len(); room < len(s) {
		if room > 0 {
			t.b.WriteString(s[:room])
		}
		t.dropped += len(s) - max(room, 0)
		return
	}
	t.b.WriteString(s)
}

func (t *boundedText) String() string {
	s := strings.ToValidUTF8(t.b.String(), "\ufffd")
	if t.dropped > 0 {
		s += "…[" + strconv.Itoa(t.dropped) + " bytes truncated]"
	}
	return s
}

// messages renders one message in the GenAI conventions' JSON form for
// gen_ai.input.messages and gen_ai.output.messages.
func messages(role, text string) string {
	type part struct {
		Type    string `json:"type"`
		Content string `json:"content"`
	}
	type message struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	b, _ := json.Marshal([]message{{Role: role, Parts: []part{{Type: "text", Content: text}}}})
	return string(b)
}
