package parse

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/valyala/fastjson"
)

// wire is the union of the top-level fields every dialect uses, read in
// one pass over the line's object. Values stay parsed JSON (views into the
// parser's copy of the line) until their event type says what they are;
// nil means absent.
type wire struct {
	typ, subtype, sessionID, modelCallID string
	timestamp, callID                    *fastjson.Value

	// system/init
	model, cwd, permissionMode, apiKeySource, requestID string

	// user, assistant, thinking; message is a string in error events
	message, text, prompt, content *fastjson.Value

	// tool_call: stream-json, payload-wrapped, hyphenated
	toolCall, payloadToolCall, toolCallID, parameters *fastjson.Value
	toolName                                          string

	// result, which is a string in result events and an object in
	// hyphenated completions
	result, exitCode, durationMs, durationAPIMs, usage, errorField *fastjson.Value
	isError                                                        bool

	attempt *fastjson.Value
	payload *fastjson.Value

	// interaction_query
	query, response, id, queryType *fastjson.Value

	noContent bool // see WithoutContent

	// scratch is where a tool's output is copied to be measured (see
	// stringLen); nil for a line too long to copy.
	scratch *[]byte
}

// readWire reads an object's fields; ids repeated on every line are kept
// once (see strings).
func readWire(obj *fastjson.Object, ids *interned) wire {
	var w wire
	obj.Visit(func(k []byte, v *fastjson.Value) {
		switch string(k) {
		case "type":
			w.typ = ids.known(v)
		case "subtype":
			w.subtype = ids.known(v)
		case "session_id":
			w.sessionID = ids.session(v)
		case "model_call_id":
			w.modelCallID = ids.modelCall(v)
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
			w.isError = v.Type() == fastjson.TypeTrue
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
		case "query", "interaction_query":
			w.query = v
		case "response", "interaction_response":
			w.response = v
		case "id", "query_id":
			w.id = v
		case "query_type":
			w.queryType = v
		}
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
	for _, f := range []struct{ dst, src **fastjson.Value }{
		{&w.timestamp, &p.timestamp}, {&w.message, &p.message}, {&w.text, &p.text},
		{&w.prompt, &p.prompt}, {&w.content, &p.content}, {&w.payloadToolCall, &p.payloadToolCall},
		{&w.result, &p.result}, {&w.exitCode, &p.exitCode}, {&w.errorField, &p.errorField},
		{&w.usage, &p.usage}, {&w.durationMs, &p.durationMs},
	} {
		if *f.dst == nil {
			*f.dst = *f.src
		}
	}
}

func (w *wire) readUsage() *Usage {
	usage := object(w.usage)
	if usage == nil {
		return nil
	}
	u := &Usage{}
	usage.Visit(func(k []byte, v *fastjson.Value) {
		n, _ := integer(v)
		switch string(k) {
		case "inputTokens", "input_tokens":
			u.InputTokens = n
		case "outputTokens", "output_tokens":
			u.OutputTokens = n
		case "cacheReadTokens", "cache_read_input_tokens":
			u.CacheReadTokens = n
		case "cacheWriteTokens", "cacheCreationTokens", "cache_creation_input_tokens":
			u.CacheCreationTokens = n
		}
	})
	return u
}

// object is v as an object; nil when v is absent or not an object.
func object(v *fastjson.Value) *fastjson.Object {
	if v == nil || v.Type() != fastjson.TypeObject {
		return nil
	}
	o, _ := v.Object()
	return o
}

// isString says v is a JSON string (unescaping it, in the parser's copy).
func isString(v *fastjson.Value) bool { return v != nil && v.Type() == fastjson.TypeString }

// str is a string value, or "" for a value of another type. Every string
// an event holds comes through here (or through interned), so every one
// is valid UTF-8 (invalid bytes become U+FFFD, as encoding/json does): an
// exporter's protobuf strings must be. It copies: the parser's memory is
// reused for the next line.
func str(v *fastjson.Value) string {
	if !isString(v) {
		return ""
	}
	b, _ := v.StringBytes()
	return text(b)
}

// text is b as a valid UTF-8 string, copied.
func text(b []byte) string {
	if !utf8.Valid(b) {
		return strings.ToValidUTF8(string(b), "\ufffd")
	}
	return string(b)
}

// raw is v as JSON text, or "" when absent or no content is wanted. Call it before
// reading v's strings: until then they are written as the line had them,
// byte for byte.
func (w *wire) raw(v *fastjson.Value) string {
	if v == nil || w.noContent {
		return ""
	}
	return string(v.MarshalTo(nil))
}

// integer reads an integer written as a JSON number or as a string of
// digits (protobuf's JSON form of int64, as in startedAtMs).
func integer(v *fastjson.Value) (int64, bool) {
	if v == nil {
		return 0, false
	}
	switch v.Type() {
	case fastjson.TypeNumber:
		if n, err := v.Int64(); err == nil {
			return n, true
		}
		if f, err := v.Float64(); err == nil {
			return int64(f), true
		}
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		if n, ok := digits(b); ok {
			return n, true
		}
		s := strings.TrimSpace(string(b))
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, true
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return int64(f), true
		}
	}
	return 0, false
}

// digits reads a string of up to 18 decimal digits, the common case
// ("1770823841542"), without the copy strconv needs.
func digits(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func integerPtr(v *fastjson.Value) *int64 {
	if n, ok := integer(v); ok {
		return &n
	}
	return nil
}

// millis turns Unix milliseconds into a time; zero when absent or not a
// positive number.
func millis(v *fastjson.Value) time.Time {
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
