package spanmap

import "go.opentelemetry.io/otel/attribute"

// identifiers are the attributes that name a thing: a conversation, a
// generation, a model call, a tool call, a request, an agent's run. They
// are recorded as given, never redacted: a conversation's id that a CI
// script keeps in SESSION_ID (or even in a variable whose name says
// secret) still groups the conversation's spans and links its turns.
// Trace and span ids and links are never text, and never redacted
// either. Every identifier attribute is set through value, which reads
// this set: nowhere else knows which attributes are identifiers.
var identifiers = map[attribute.Key]bool{
	ConversationID:     true,
	GenerationID:       true,
	ModelCallID:        true,
	ToolCallID:         true,
	RequestID:          true,
	InteractionID:      true,
	SubagentID:         true,
	SubagentParent:     true,
	SubagentSessionID:  true,
	MessageFromSession: true,
	RPCRequestID:       true,
	JSONRPCRequestID:   true,
}

// value prepares a string from the source as the value of k: an
// identifier as given (valid UTF-8, bounded as any short value), anything
// else as text, bounded at max and redacted.
func (r *shaper) value(k attribute.Key, s string, max int) string {
	if identifiers[k] {
		return truncate(s, maxMessage, 0)
	}
	return r.text(s, max)
}

// str is k set to s as value prepares it, for a short value.
func (r *shaper) str(k attribute.Key, s string) attribute.KeyValue {
	return k.String(r.value(k, s, maxMessage))
}
