package parse

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// wire is the union of the top-level fields every dialect uses, read in
// one pass over the line. Values stay as gjson results (slices of the
// line) until their event type says what they are.
type wire struct {
	typ, subtype, sessionID, modelCallID string
	timestamp, callID                    gjson.Result

	// system/init
	model, cwd, permissionMode, apiKeySource, requestID string

	// user, assistant, thinking; message is a string in error events
	message, text, prompt, content gjson.Result

	// tool_call: stream-json, payload-wrapped, hyphenated
	toolCall, payloadToolCall, toolCallID, parameters gjson.Result
	toolName                                          string

	// result, which is a string in result events and an object in
	// hyphenated completions
	result, exitCode, durationMs, durationAPIMs, usage, errorField gjson.Result
	isError                                                        bool

	attempt gjson.Result
	payload gjson.Result
}

func readWire(obj gjson.Result) wire {
	var w wire
	obj.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			w.typ = str(v)
		case "subtype":
			w.subtype = str(v)
		case "session_id":
			w.sessionID = str(v)
		case "model_call_id":
			w.modelCallID = str(v)
		case "timestamp_ms":
			w.timestamp = v
		case "call_id":
			w.callID = v
		case "model":
			w.model = str(v)
		case "cwd", "workspace":
			w.cwd = first(w.cwd, str(v))
		case "permissionMode":
			w.permissionMode = str(v)
		case "apiKeySource":
			w.apiKeySource = str(v)
		case "request_id":
			w.requestID = str(v)
		case "message":
			w.message = v
		case "text":
			w.text = v
		case "prompt":
			w.prompt = v
		case "content":
			w.content = v
		case "tool_call":
			w.toolCall = v
		case "toolCall":
			w.payloadToolCall = v
		case "tool_name":
			w.toolName = str(v)
		case "tool_call_id":
			w.toolCallID = v
		case "parameters":
			w.parameters = v
		case "result":
			w.result = v
		case "is_error":
			w.isError = v.Type == gjson.True
		case "exitCode":
			w.exitCode = v
		case "duration_ms":
			w.durationMs = v
		case "duration_api_ms":
			w.durationAPIMs = v
		case "usage":
			w.usage = v
		case "error":
			w.errorField = v
		case "attempt":
			w.attempt = v
		case "payload":
			w.payload = v
		}
		return true
	})
	return w
}

// adopt fills the fields the outer line left empty from its payload.
func (w *wire) adopt(p wire) {
	w.sessionID = first(w.sessionID, p.sessionID)
	w.modelCallID = first(w.modelCallID, p.modelCallID)
	w.model = first(w.model, p.model)
	w.cwd = first(w.cwd, p.cwd)
	w.permissionMode = first(w.permissionMode, p.permissionMode)
	w.apiKeySource = first(w.apiKeySource, p.apiKeySource)
	w.requestID = first(w.requestID, p.requestID)
	w.isError = w.isError || p.isError
	for _, f := range []struct{ dst, src *gjson.Result }{
		{&w.timestamp, &p.timestamp}, {&w.message, &p.message}, {&w.text, &p.text},
		{&w.prompt, &p.prompt}, {&w.content, &p.content}, {&w.payloadToolCall, &p.payloadToolCall},
		{&w.result, &p.result}, {&w.exitCode, &p.exitCode}, {&w.errorField, &p.errorField},
		{&w.usage, &p.usage}, {&w.durationMs, &p.durationMs},
	} {
		if !f.dst.Exists() {
			*f.dst = *f.src
		}
	}
}

func (w *wire) readUsage() *Usage {
	if !w.usage.IsObject() {
		return nil
	}
	u := &Usage{}
	w.usage.ForEach(func(k, v gjson.Result) bool {
		n, _ := integer(v)
		switch k.Str {
		case "inputTokens", "input_tokens":
			u.InputTokens = n
		case "outputTokens", "output_tokens":
			u.OutputTokens = n
		case "cacheReadTokens", "cache_read_input_tokens":
			u.CacheReadTokens = n
		case "cacheWriteTokens", "cacheCreationTokens", "cache_creation_input_tokens":
			u.CacheCreationTokens = n
		}
		return true
	})
	return u
}

// str is a string value, or "" for a value of another type. Every string
// an event holds comes through here, so every one is valid UTF-8 (invalid
// bytes become U+FFFD, as encoding/json does): an exporter's protobuf
// strings must be.
func str(v gjson.Result) string {
	if v.Type != gjson.String {
		return ""
	}
	if !utf8.ValidString(v.Str) {
		return strings.ToValidUTF8(v.Str, "\ufffd")
	}
	return v.Str
}

// integer reads an integer written as a JSON number or as a string of
// digits (protobuf's JSON form of int64, as in startedAtMs).
func integer(v gjson.Result) (int64, bool) {
	switch v.Type {
	case gjson.Number:
		return v.Int(), true
	case gjson.String:
		s := strings.TrimSpace(v.Str)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, true
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return int64(f), true
		}
	}
	return 0, false
}

func integerPtr(v gjson.Result) *int64 {
	if n, ok := integer(v); ok {
		return &n
	}
	return nil
}

// millis turns Unix milliseconds into a time; zero when absent or not a
// positive number.
func millis(v gjson.Result) time.Time {
	if n, ok := integer(v); ok && n > 0 {
		return time.UnixMilli(n)
	}
	return time.Time{}
}

func first(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
