package hook

import (
	"reflect"

	"github.com/cursor-otel/cursor-otel/internal/redact"
	"github.com/cursor-otel/cursor-otel/parse"
)

// The journal keeps nothing in clear that the spool would redact: each
// event's text is redacted as the hook writes it, by the redactor and
// rules the spool's spans are redacted with, and its identifiers are kept
// as given (they name the conversation, the generation, the calls, and
// the span ids are made from them). Every string of an event is text
// unless this file names it an identifier: a field added to
// parse.HookEvent is redacted until it is named here.

// identifierFields are the event's strings kept as given, by type and
// field.
var identifierFields = map[string]bool{
	"HookEvent.Name":                     true, // the hook's name, which says what the event is
	"HookEvent.ConversationID":           true,
	"HookEvent.GenerationID":             true,
	"HookEvent.SubagentID":               true,
	"HookEvent.ToolKey":                  true, // made anew from the redacted call when it is no tool_use_id
	"ToolCall.ID":                        true,
	"Subagent.ID":                        true,
	"SubagentFacts.ToolCallID":           true,
	"SubagentFacts.ParentConversationID": true,
}

// jsonFields are the event's strings that hold JSON: redacted as a
// document, as the spans' arguments and results are.
var jsonFields = map[string]bool{"ToolCall.Args": true, "HookEvent.Result": true, "ToolResult.Raw": true}

// redacted is ev with its text redacted by r, as the spool's spans would
// have it, and its identifiers as given.
func redacted(ev parse.HookEvent, r *redact.Redactor) parse.HookEvent {
	redactValue(reflect.ValueOf(&ev).Elem(), r)
	if ev.Tool != nil && ev.Tool.ID == "" {
		// The key that pairs the call's events is made of its text: the
		// redacted call makes the same key for each of them.
		ev.ToolKey = parse.HookToolKey(ev.Tool)
	}
	return ev
}

// redactValue redacts the strings in v (addressable) but identifiers.
func redactValue(v reflect.Value, r *redact.Redactor) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			redactValue(v.Elem(), r)
		}
	case reflect.Slice:
		for i := range v.Len() {
			redactValue(v.Index(i), r)
		}
	case reflect.String:
		if s := v.String(); s != "" {
			v.SetString(r.Redact(s))
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f, fv := t.Field(i), v.Field(i)
			if !f.IsExported() {
				continue
			}
			name := t.Name() + "." + f.Name
			switch {
			case fv.Kind() != reflect.String:
				redactValue(fv, r)
			case identifierFields[name] || fv.String() == "":
			case jsonFields[name]:
				fv.SetString(r.RedactJSON(fv.String()))
			default:
				fv.SetString(r.Redact(fv.String()))
			}
		}
	}
}
