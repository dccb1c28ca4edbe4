package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// ErrNotObject says a line is not a JSON object.
var ErrNotObject = errors.New("not a JSON object")

// Decode turns one line (without its line ending) into an event. It never
// fails: a line it cannot read becomes *Invalid, a type it does not know
// becomes *Unknown. num is the line's 1-based number.
//
// The line is validated once and then read in one pass per object: a tool
// result of megabytes is sliced, never decoded or copied level by level.
func Decode(line []byte, num int) Event {
	trimmed := bytes.TrimLeft(line, " \t\r\ufeff")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return &Invalid{Header: Header{Line: num}, Size: len(line), Err: ErrNotObject}
	}
	if !gjson.ValidBytes(trimmed) {
		return &Invalid{Header: Header{Line: num}, Size: len(line), Err: syntaxError(trimmed)}
	}
	w := readWire(gjson.ParseBytes(trimmed))
	if w.payload.IsObject() {
		w.adopt(readWire(w.payload))
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
	case "user":
		return &Prompt{Header: h, Text: first(messageText(w.message), str(w.prompt), str(w.text))}
	case "thinking":
		return &Thinking{Header: h, Text: first(str(w.text), contentText(w.content)), Done: w.subtype == "completed"}
	case "assistant":
		// A partial-output delta has a timestamp and no model_call_id; the
		// consolidated messages lack one or the other.
		delta := (w.timestamp.Exists() && w.modelCallID == "") || (w.text.Exists() && !w.message.Exists())
		return &Assistant{Header: h, Text: first(messageText(w.message), str(w.text)), Delta: delta}
	case "tool_call":
		switch w.subtype {
		case "started":
			call, _ := streamToolCall(&w)
			return &ToolStarted{Header: h, Call: call}
		case "completed":
			call, result := streamToolCall(&w)
			return &ToolCompleted{Header: h, Call: call, Result: decodeResult(result, &call.Facts)}
		}
	case "tool-call-started":
		return &ToolStarted{Header: h, Call: hyphenToolCall(&w)}
	case "tool-call-completed":
		call := hyphenToolCall(&w)
		return &ToolCompleted{Header: h, Call: call, Result: decodeResult(w.result, &call.Facts)}
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
func messageText(v gjson.Result) string {
	if !v.IsObject() {
		return ""
	}
	return contentText(v.Get("content"))
}

// contentText reads content given as a string or as a list of {type,
// text} parts.
func contentText(v gjson.Result) string {
	if v.Type == gjson.String {
		return str(v)
	}
	if !v.IsArray() {
		return ""
	}
	var b strings.Builder
	v.ForEach(func(_, part gjson.Result) bool {
		if t := part.Get("type"); !t.Exists() || t.Str == "text" {
			b.WriteString(str(part.Get("text")))
		}
		return true
	})
	return b.String()
}

// errorText reads an error given as a string or as {message|error: string}.
func errorText(v gjson.Result) string {
	if v.Type == gjson.String {
		return str(v)
	}
	if !v.IsObject() {
		return ""
	}
	return first(str(v.Get("message")), str(v.Get("error")), str(v.Get("errorMessage")), str(v.Get("modelVisibleError")))
}

// syntaxError says where a line stops being JSON. Lines that are not JSON
// are rare, so encoding/json's slower, more precise scanner is used here.
func syntaxError(b []byte) error {
	var syn *json.SyntaxError
	if err := json.Unmarshal(b, new(json.RawMessage)); errors.As(err, &syn) {
		return fmt.Errorf("invalid JSON at byte %d: %s", syn.Offset, syn.Error())
	}
	return errors.New("invalid JSON")
}
