package parse

import (
	"unicode/utf8"

	"github.com/valyala/fastjson"
)

// interned keeps the strings every line repeats, so that a stream of a
// million lines does not make a million copies of its session id: event
// types and subtypes from a fixed list, the session and model call ids as
// the last one seen.
type interned struct {
	sessionID, modelCallID string
}

// names are the types and subtypes the dialects use.
var names = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{
		"system", "init", "user", "assistant", "thinking", "delta", "completed", "started",
		"tool_call", "tool-call-started", "tool-call-completed", "result", "success", "error",
		"connection", "retry", "reconnecting", "connected", "starting", "resuming", "interaction_query",
	} {
		m[s] = s
	}
	return m
}()

// known is a type or subtype string.
func (in *interned) known(v *fastjson.Value) string {
	if !isString(v) {
		return ""
	}
	b, _ := v.StringBytes()
	return knownBytes(b)
}

// knownBytes is a type or subtype, unescaped.
func knownBytes(b []byte) string {
	// A thinking delta's subtype, on most lines: compared, not hashed.
	switch string(b) {
	case "delta":
		return "delta"
	case "completed":
		return "completed"
	}
	if s, ok := names[string(b)]; ok {
		return s
	}
	return text(b)
}

func (in *interned) session(v *fastjson.Value) string {
	return in.last(v, &in.sessionID)
}

func (in *interned) modelCall(v *fastjson.Value) string {
	return in.last(v, &in.modelCallID)
}

// sessionBytes and modelCallBytes are session and modelCall for an
// unescaped string the flat scanner read.
func (in *interned) sessionBytes(b []byte) string   { return lastBytes(b, &in.sessionID) }
func (in *interned) modelCallBytes(b []byte) string { return lastBytes(b, &in.modelCallID) }

// last is v's string, the one kept in *prev when they are the same.
func (in *interned) last(v *fastjson.Value, prev *string) string {
	if !isString(v) {
		return ""
	}
	b, _ := v.StringBytes()
	return lastBytes(b, prev)
}

// lastBytes is b, unescaped, as a string: the one kept in *prev when they
// are the same.
func lastBytes(b []byte, prev *string) string {
	if *prev != "" && string(b) == *prev {
		return *prev
	}
	if utf8.Valid(b) {
		*prev = string(b)
		return *prev
	}
	return text(b)
}
