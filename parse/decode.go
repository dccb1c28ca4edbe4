package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/valyala/fastjson"
)

// ErrNotObject says a line is not a JSON object.
var ErrNotObject = errors.New("not a JSON object")

// lineDecoder decodes lines one after another, reusing its parser's memory.
//
// Each line is parsed once, validating it, into values that point into the
// parser's copy of the line; strings are unescaped only when read, so a
// tool result of megabytes is scanned, not decoded, unless its text is
// wanted.
type lineDecoder struct {
	parser    fastjson.Parser
	ids       interned
	noContent bool // see WithoutContent
	// thinking is where the flat scanner's events are made, a slab at a
	// time: one allocation for thinkingSlab lines, not one a line.
	thinking []Thinking
	// scratch is where a line's tool output is copied to be measured
	// (stringLen), reused: at most maxScratchLine bytes.
	scratch []byte
}

// maxScratchLine is the longest line whose tool output is measured in
// scratch; a longer one is unescaped in place instead, so that scratch
// never holds more than this (a 40 MiB tool result is not copied).
const maxScratchLine = 1 << 20

// thinkingSlab is how many Thinking events are allocated at once. A slab
// lives as long as any of its events: small, so that an event kept by
// its reader keeps little else.
const thinkingSlab = 32

// newThinking is the event of a thinking line with header h, for the
// full parse and the flat scanner alike (the subtype "completed" ends a
// phase), made from the slab.
func (l *lineDecoder) newThinking(h Header) *Thinking {
	if len(l.thinking) == 0 {
		l.thinking = make([]Thinking, thinkingSlab)
	}
	th := &l.thinking[0]
	l.thinking = l.thinking[1:]
	*th = Thinking{Header: h, Done: h.Subtype == "completed"}
	return th
}

func (l *lineDecoder) decode(line []byte, num int) Event {
	trimmed := line
	if len(line) == 0 || line[0] != '{' {
		// Rare: the cutset's byte order mark makes TrimLeft read runes,
		// a measurable share of a replay's CPU when every line went
		// through it (docs/performance.md, "measured choices").
		trimmed = bytes.TrimLeft(line, " \t\r\ufeff")
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return &Invalid{Header: Header{Line: num}, Size: len(line), Err: ErrNotObject}
	}
	if th, ok := l.flatThinking(trimmed, num); ok {
		return th
	}
	return l.full(line, trimmed, num)
}

// full decodes a line with the full parser.
func (l *lineDecoder) full(line, trimmed []byte, num int) Event {
	v, err := l.parser.ParseBytes(trimmed)
	if err != nil {
		return &Invalid{Header: Header{Line: num}, Size: len(line), Err: syntaxError(trimmed)}
	}
	obj, _ := v.Object()
	w := readWire(obj, &l.ids)
	w.noContent = l.noContent
	if len(trimmed) <= maxScratchLine {
		w.scratch = &l.scratch
	}
	if p := object(w.payload); p != nil {
		w.adopt(readWire(p, &l.ids))
	}
	h := Header{
		Line:        num,
		Type:        w.typ,
		Subtype:     w.subtype,
		SessionID:   w.sessionID,
		ModelCallID: w.modelCallID,
		Time:        millis(w.timestamp),
	}
	switch w.typ {
	case "system":
		if w.subtype == "init" || w.subtype == "" {
			return &Init{Header: h, Model: w.model, Cwd: w.cwd, PermissionMode: w.permissionMode,
				APIKeySource: w.apiKeySource, RequestID: w.requestID}
		}
		return &Notice{Header: h, Message: first(str(w.message), messageText(w.message), str(w.text)), CallID: str(w.callID)}
	case "interaction_query":
		return interaction(h, &w)
	case "user":
		p := &Prompt{Header: h}
		if !w.noContent {
			p.Text = first(messageText(w.message), str(w.prompt), str(w.text))
		}
		return p
	case "thinking":
		th := l.newThinking(h)
		if !w.noContent {
			th.Text = first(str(w.text), contentText(w.content))
		}
		return th
	case "assistant":
		// A partial-output delta has a timestamp and no model_call_id; the
		// consolidated messages lack one or the other.
		delta := (w.timestamp != nil && w.modelCallID == "") || (w.text != nil && w.message == nil)
		a := &Assistant{Header: h, Delta: delta}
		if !w.noContent {
			a.Text = first(messageText(w.message), str(w.text))
		}
		return a
	case "tool_call":
		switch w.subtype {
		case "started":
			call, _ := streamToolCall(&w)
			return &ToolStarted{Header: h, Call: call}
		case "completed":
			call, result := streamToolCall(&w)
			res := decodeResult(&w, result, &call)
			return &ToolCompleted{Header: h, Call: call, Result: res}
		}
	case "tool-call-started":
		return &ToolStarted{Header: h, Call: hyphenToolCall(&w)}
	case "tool-call-completed":
		call := hyphenToolCall(&w)
		res := decodeResult(&w, w.result, &call)
		return &ToolCompleted{Header: h, Call: call, Result: res}
	case "result":
		return decodeResultEvent(h, &w)
	case "connection":
		return &Connection{Header: h}
	case "retry":
		attempt, _ := integer(w.attempt)
		return &Retry{Header: h, Attempt: attempt}
	case "error":
		return &Error{Header: h, Message: first(str(w.message), errorText(w.errorField), str(w.text))}
	}
	return &Unknown{Header: h, Size: len(line)}
}

func decodeResultEvent(h Header, w *wire) *Result {
	exit, _ := integer(w.exitCode)
	duration, _ := integer(w.durationMs)
	apiDuration, _ := integer(w.durationAPIMs)
	return &Result{
		Header:        h,
		IsError:       w.isError || w.subtype == "error" || exit != 0,
		Text:          str(w.result),
		Error:         errorText(w.errorField),
		DurationMs:    duration,
		DurationAPIMs: apiDuration,
		RequestID:     w.requestID,
		Usage:         w.readUsage(),
	}
}

// messageText joins the text parts of a message object.
func messageText(v *fastjson.Value) string {
	if object(v) == nil {
		return ""
	}
	return contentText(v.Get("content"))
}

// contentText reads content given as a string or as a list of {type,
// text} parts.
func contentText(v *fastjson.Value) string {
	if v == nil {
		return ""
	}
	switch v.Type() {
	case fastjson.TypeString:
		return str(v)
	case fastjson.TypeArray:
		parts, _ := v.Array()
		if len(parts) == 1 {
			return partText(parts[0])
		}
		var b strings.Builder
		for _, part := range parts {
			b.WriteString(partText(part))
		}
		return b.String()
	}
	return ""
}

// partText is the text of a {type: text, text} part.
func partText(part *fastjson.Value) string {
	if t := part.Get("type"); t != nil && !(isString(t) && string(t.GetStringBytes()) == "text") {
		return ""
	}
	return str(part.Get("text"))
}

// errorText reads an error given as a string or as {message|error: string}.
func errorText(v *fastjson.Value) string {
	if isString(v) {
		return str(v)
	}
	if object(v) == nil {
		return ""
	}
	return first(str(v.Get("message")), str(v.Get("error")), str(v.Get("errorMessage")), str(v.Get("modelVisibleError")))
}

// syntaxError says where a line stops being JSON. Lines that are not JSON
// are rare, so encoding/json's slower, more precise scanner is used here;
// the parser's own message would quote the line, secrets and all.
func syntaxError(b []byte) error {
	var syn *json.SyntaxError
	if err := json.Unmarshal(b, new(json.RawMessage)); errors.As(err, &syn) {
		return fmt.Errorf("invalid JSON at byte %d: %s", syn.Offset, syn.Error())
	}
	return errors.New("invalid JSON")
}
