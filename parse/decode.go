package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrNotObject says a line is JSON (or not) but not a JSON object.
var ErrNotObject = errors.New("not a JSON object")

// Decode turns one line (without its line ending) into an event. It never
// fails: a line it cannot read becomes *Invalid, a type it does not know
// becomes *Unknown. num is the line's 1-based number.
func Decode(line []byte, num int) Event {
	trimmed := bytes.TrimLeft(line, " \t\r\ufeff")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return &Invalid{Header: Header{Line: num}, Size: len(line), Err: ErrNotObject}
	}
	var w wire
	if err := json.Unmarshal(trimmed, &w); err != nil {
		// A field of an unexpected type leaves the rest decoded; anything
		// else means the line is not JSON.
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return &Invalid{Header: Header{Line: num}, Size: len(line), Err: shortError(err)}
		}
	}
	if isObject(w.Payload) {
		var p wire
		_ = json.Unmarshal(w.Payload, &p) // best effort: the outer line is valid
		w.adopt(&p)
	}
	h := Header{
		Line:        num,
		Type:        w.Type,
		Subtype:     w.Subtype,
		SessionID:   w.SessionID,
		ModelCallID: w.ModelCallID,
		Time:        w.TimestampMs.millis(),
	}
	switch w.Type {
	case "system":
		if w.Subtype == "init" || w.Subtype == "" {
			return &Init{Header: h, Model: w.Model, Cwd: firstOf(w.Cwd, w.Workspace),
				PermissionMode: w.PermissionMode, APIKeySource: w.APIKeySource, RequestID: w.RequestID}
		}
	case "user":
		return &Prompt{Header: h, Text: firstOf(messageText(w.Message), w.Prompt, deref(w.Text))}
	case "thinking":
		return &Thinking{Header: h, Text: firstOf(deref(w.Text), contentText(w.Content)), Done: w.Subtype == "completed"}
	case "assistant":
		// A partial-output delta has a timestamp and no model_call_id; the
		// consolidated messages have one or the other missing.
		delta := (w.TimestampMs.set && w.ModelCallID == "") || (w.Text != nil && w.Message == nil)
		return &Assistant{Header: h, Text: firstOf(messageText(w.Message), deref(w.Text)), Delta: delta}
	case "tool_call":
		switch w.Subtype {
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
		return &ToolCompleted{Header: h, Call: call, Result: decodeResult(w.Result, &call.Facts)}
	case "result":
		return decodeResultEvent(h, &w)
	case "connection":
		return &Connection{Header: h}
	case "retry":
		return &Retry{Header: h, Attempt: w.Attempt.v}
	case "error":
		return &Error{Header: h, Message: firstOf(jsonText(w.Message), errorText(w.Error), deref(w.Text))}
	}
	return &Unknown{Header: h, Size: len(line)}
}

func decodeResultEvent(h Header, w *wire) *Result {
	r := &Result{
		Header:        h,
		Text:          jsonText(w.Result),
		Error:         errorText(w.Error),
		DurationMs:    w.DurationMs.v,
		DurationAPIMs: w.DurationAPIMs.v,
		RequestID:     w.RequestID,
		Usage:         w.Usage.usage(),
	}
	r.IsError = w.IsError || w.Subtype == "error" || (w.ExitCode != nil && w.ExitCode.v != 0)
	return r
}

// adopt fills the fields the outer line left empty from its payload.
func (w *wire) adopt(p *wire) {
	if w.SessionID == "" {
		w.SessionID = p.SessionID
	}
	if w.ModelCallID == "" {
		w.ModelCallID = p.ModelCallID
	}
	if !w.TimestampMs.set {
		w.TimestampMs = p.TimestampMs
	}
	if w.Model == "" {
		w.Model = p.Model
	}
	if w.Cwd == "" {
		w.Cwd = firstOf(p.Cwd, p.Workspace)
	}
	if w.PermissionMode == "" {
		w.PermissionMode = p.PermissionMode
	}
	if w.APIKeySource == "" {
		w.APIKeySource = p.APIKeySource
	}
	if w.RequestID == "" {
		w.RequestID = p.RequestID
	}
	if w.Message == nil {
		w.Message = p.Message
	}
	if w.Text == nil {
		w.Text = p.Text
	}
	if w.Prompt == "" {
		w.Prompt = p.Prompt
	}
	if w.Content == nil {
		w.Content = p.Content
	}
	if w.PayloadToolCall == nil {
		w.PayloadToolCall = p.PayloadToolCall
	}
	if w.Result == nil {
		w.Result = p.Result
	}
	w.IsError = w.IsError || p.IsError
	if w.ExitCode == nil {
		w.ExitCode = p.ExitCode
	}
	if w.Error == nil {
		w.Error = p.Error
	}
	if w.Usage == nil {
		w.Usage = p.Usage
	}
	if !w.DurationMs.set {
		w.DurationMs = p.DurationMs
	}
}

// messageText joins the text parts of a message object, whose content is
// either a string or a list of {type, text} parts.
func messageText(raw json.RawMessage) string {
	if !isObject(raw) {
		return ""
	}
	var m struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	return contentText(m.Content)
}

// contentText reads content given as a string or as a list of parts.
func contentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		return jsonText(raw)
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	if len(parts) == 1 {
		return parts[0].Text
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "" || p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// jsonText returns raw as a string when it is a JSON string.
func jsonText(raw json.RawMessage) string {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

// errorText reads an error given as a string or as {message|error: string}.
func errorText(raw json.RawMessage) string {
	if s := jsonText(raw); s != "" {
		return s
	}
	if !isObject(raw) {
		return ""
	}
	o := decodeObject(raw)
	return o.str("message", "error", "errorMessage", "modelVisibleError")
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '{'
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// shortError keeps a JSON syntax error's message and offset, not its type.
func shortError(err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("invalid JSON at byte %d: %s", syn.Offset, syn.Error())
	}
	return err
}
