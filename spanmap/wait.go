package spanmap

import (
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// A wait on the person reads the same whichever source told it (ACP's
// session/request_permission and Cursor's questions, the stream's
// interaction_query): a span of its own from the question to the answer,
// under the tool call it holds up when the source says which, and the
// answer in one word, cursor.interaction.outcome.

// waitDraft is a wait on the person as every source that tells one
// starts it: named by what is asked (request_permission, ask_question…),
// CLIENT (the person is outside the agent), with cursor.wait. It is no
// GenAI operation, so it has no gen_ai.operation.name (ACP's are JSON-RPC
// spans).
func waitDraft(name string) *draft {
	attrs := make([]attribute.KeyValue, 1, waitAttrs)
	attrs[0] = Wait.Bool(true)
	return &draft{name: name, kind: trace.SpanKindClient, attrs: attrs}
}

// waitAttrs is room for what a wait's span or a request's says, so
// that the attributes grow once: the operation, the identity, the
// answer, and a request's JSON-RPC names.
const waitAttrs = 14

// waitAnswer is what a wait's span says of the answer: the outcome,
// named one way whoever told it (see waitOutcome).
func (r *shaper) waitAnswer(outcome string) []attribute.KeyValue {
	if o := r.text(waitOutcome(outcome), maxMessage); o != "" {
		return []attribute.KeyValue{InteractionOutcome.String(o)}
	}
	return nil
}

// waitOutcome names an answer one way: approved, rejected or cancelled
// for the words the sources use for them (the stream's accepted,
// allowed, denied; canceled), else the source's own word.
func waitOutcome(word string) string {
	switch w := strings.ToLower(word); w {
	case "approved", "accepted", "allowed":
		return "approved"
	case "rejected", "denied":
		return "rejected"
	case "cancelled", "canceled":
		return "cancelled"
	default:
		return w
	}
}

// permissionOutcome is the one-word answer to an ACP permission request:
// the option chosen read by its kind (allow_once, allow_always: approved;
// reject_once, reject_always: rejected), or the request's outcome
// (cancelled).
func permissionOutcome(outcome, optionKind string) string {
	switch {
	case outcome != "selected":
		return outcome
	case strings.HasPrefix(optionKind, "allow"):
		return "approved"
	case strings.HasPrefix(optionKind, "reject"):
		return "rejected"
	}
	return outcome
}

// requestDraft is a request made across the editor's connection (ACP's
// JSON-RPC, either way): named by its method unless name says otherwise,
// keyed by the JSON-RPC conventions, old and current. A method is no
// GenAI operation: the span has no gen_ai.operation.name unless the
// caller adds one (a request that is a tool of its own).
func (r *shaper) requestDraft(name string, kind trace.SpanKind, m *parse.ACPRequest) *draft {
	return &draft{name: name, kind: kind, attrs: r.appendRPC(make([]attribute.KeyValue, 0, waitAttrs), m)}
}
