package spanmap

import "go.opentelemetry.io/otel/attribute"

// A turn's root is opened the same way whichever source told the turn:
// the stream's session, the hooks' turn and ACP's prompt turn are each an
// invoke_agent client span with what is known of the conversation.

// said is one thing a span says of the conversation, left out when empty.
type said struct {
	key   attribute.Key
	value string
}

// facts are the facts given as attributes, each prepared as value does
// (an identifier as given, anything else bounded and redacted as text),
// the empty left out.
func (r *shaper) facts(fs ...said) []attribute.KeyValue { return r.appendFacts(nil, fs...) }

// appendFacts appends the facts given to attrs, as facts makes them.
func (r *shaper) appendFacts(attrs []attribute.KeyValue, fs ...said) []attribute.KeyValue {
	for _, f := range fs {
		if v := r.value(f.key, f.value, maxMessage); v != "" {
			attrs = append(attrs, f.key.String(v))
		}
	}
	return attrs
}

// rootAttributes are what an agent's span says as it opens, a turn's
// root or a subagent's: the operation, the provider, the agent, and the
// facts known so far (the conversation, its model, working directory,
// mode…).
func (r *shaper) rootAttributes(agent string, fs ...said) []attribute.KeyValue {
	return r.appendRootAttributes(make([]attribute.KeyValue, 0, 3+len(fs)), agent, fs...)
}

// appendRootAttributes appends to attrs what rootAttributes gives.
func (r *shaper) appendRootAttributes(attrs []attribute.KeyValue, agent string, fs ...said) []attribute.KeyValue {
	attrs = append(attrs, OperationName.String(OpInvokeAgent), ProviderName.String("cursor"), AgentName.String(agent))
	return r.appendFacts(attrs, fs...)
}

// identity is what every span of a conversation says of whom it belongs
// to, for the backends that group spans by conversation and draw each
// agent's timeline: the agent whose span it is in, and the conversation
// when one is known. (A stream's spans take it from their session at
// their end: draft.withIdentity.)
func (r *shaper) identity(agent, conversation string) []attribute.KeyValue {
	return r.appendIdentity(make([]attribute.KeyValue, 0, 2), agent, conversation)
}

// appendIdentity appends the identity to attrs.
func (r *shaper) appendIdentity(attrs []attribute.KeyValue, agent, conversation string) []attribute.KeyValue {
	return r.appendFacts(append(attrs, AgentName.String(agent)), said{ConversationID, conversation})
}
