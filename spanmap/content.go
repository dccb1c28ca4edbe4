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
func (r *shaper) text(s string, max int) string {
	return r.textDropped(s, max, 0)
}

// textDropped is text for the start of a longer string, of which dropped
// bytes were not kept: the truncation marker counts them too.
func (r *shaper) textDropped(s string, max, dropped int) string {
	if s == "" {
		return ""
	}
	if limit := max + redactMargin; len(s) > limit {
		s, dropped = s[:limit], dropped+len(s)-limit
	}
	if r.opts.Redact != nil {
		s = r.opts.Redact(s)
	}
	return truncate(s, max, dropped)
}

// maxWholeJSON is the largest JSON value redacted as a document before it
// is cut; a larger one is cut first and redacted as text.
const maxWholeJSON = 1 << 20

// jsonText prepares a JSON value from the stream (a tool's arguments or
// result) as text does, but redacts it as a document first, so that a
// secret inside an escaped string or under a field named for one is seen
// as the tool saw it.
func (r *shaper) jsonText(s string, max int) string {
	if r.opts.RedactJSON == nil || len(s) > maxWholeJSON {
		return r.text(s, max)
	}
	return truncate(r.opts.RedactJSON(s), max, 0)
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

// toolPart is a tool call a model call issued, for its output message.
type toolPart struct {
	id, name, args string // args: the arguments as JSON (content capture)
}

// part is one part of a GenAI message (the conventions' JSON schemas).
type part struct {
	Type      string `json:"type"`
	Content   string `json:"content,omitempty"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments any    `json:"arguments,omitempty"`
}

// inputMessage renders the prompt for gen_ai.input.messages.
func inputMessage(text string) string {
	type message struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	b, _ := json.Marshal([]message{{Role: "user", Parts: []part{{Type: "text", Content: text}}}})
	return string(b)
}

// messageOverhead is what a message's JSON may add to the limit on
// captured content: its roles, part types, ids and finish reason.
const messageOverhead = 256

// outputMessage renders what a model call produced for
// gen_ai.output.messages: its thinking as reasoning parts, its text, the
// tool calls it made (arguments as JSON when they are), and why it
// finished (stop, tool_call, error). The whole stays within MaxContent
// and messageOverhead: the values are cut shorter until it does, and tool
// calls past what fits are left out.
func (r *shaper) outputMessage(finish string, reasoning []string, text string, calls []toolPart) string {
	limit := r.opts.MaxContent
	for cut := limit; ; cut /= 2 {
		m := r.renderOutput(finish, reasoning, text, calls, cut)
		if len(m) <= limit+messageOverhead {
			return m
		}
		if cut == 0 {
			// Not even the tool calls' ids fit: as many as do.
			for len(calls) > 0 && len(m) > limit+messageOverhead {
				calls = calls[:len(calls)-1]
				m = r.renderOutput(finish, nil, "", calls, 0)
			}
			return m
		}
	}
}

// renderOutput renders the message with every value cut to cut bytes.
func (r *shaper) renderOutput(finish string, reasoning []string, text string, calls []toolPart, cut int) string {
	type message struct {
		Role         string `json:"role"`
		Parts        []part `json:"parts"`
		FinishReason string `json:"finish_reason"`
	}
	m := message{Role: "assistant", FinishReason: finish, Parts: []part{}}
	for _, t := range reasoning {
		if t = shorten(t, cut); t != "" {
			m.Parts = append(m.Parts, part{Type: "reasoning", Content: t})
		}
	}
	if t := shorten(text, cut); t != "" {
		m.Parts = append(m.Parts, part{Type: "text", Content: t})
	}
	for _, c := range calls {
		p := part{Type: "tool_call", ID: r.value(ToolCallID, c.id, maxMessage), Name: r.text(c.name, maxMessage)}
		if args := r.jsonText(c.args, cut); args != "" {
			if json.Valid([]byte(args)) {
				p.Arguments = json.RawMessage(args)
			} else {
				p.Arguments = args
			}
		}
		m.Parts = append(m.Parts, p)
	}
	b, _ := json.Marshal([]message{m})
	return string(b)
}

// shorten cuts already prepared text to at most n bytes, saying so. Text
// cut before keeps its count: the marker it ends with says what was
// dropped then, and what is dropped now is added to it.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n == 0 {
		return ""
	}
	body, dropped := cutMarker(s)
	if len(body) <= n {
		return s
	}
	return truncate(body, n, dropped)
}

// cutMarker splits text truncate made into what it kept and the count its
// marker gives (0, and s whole, when it has none).
func cutMarker(s string) (string, int) {
	const suffix = " bytes truncated]"
	if !strings.HasSuffix(s, suffix) {
		return s, 0
	}
	i := strings.LastIndex(s, "…[")
	if i < 0 {
		return s, 0
	}
	n, err := strconv.Atoi(s[i+len("…[") : len(s)-len(suffix)])
	if err != nil || n <= 0 {
		return s, 0
	}
	return s[:i], n
}
