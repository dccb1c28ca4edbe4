package spanmap

import (
	"cmp"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// A subagent's span is opened and ended by the same rules whichever
// source told it: the stream's task result, ACP's subagent updates and
// cursor/task, the hooks' subagentStart and subagentStop. What each
// source knows of it besides (its steps, its session, its counts) is
// the source's.

// subagentName is a subagent's name as its span says it, whichever
// source named it (its type, or the title it was given): as text, else
// "subagent".
func (r *shaper) subagentName(name string) string {
	return cmp.Or(r.text(name, maxMessage), "subagent")
}

// subagentDraft is a subagent's span as every source opens it: an
// invoke_agent span (INTERNAL) named by the subagent, saying what an
// agent's span says (rootAttributes) and the facts given.
func (r *shaper) subagentDraft(name string, fs ...said) *draft {
	name = r.subagentName(name)
	return &draft{name: "invoke_agent " + name, kind: trace.SpanKindInternal, attrs: r.rootAttributes(name, fs...)}
}

// subagentEnd says how a subagent ended on its span, by the one rule
// every source that tells it follows (ACP's subagent updates and
// cursor/task, the hooks' subagentStop): its status as the source gave
// it, and a failed one ERROR with error.type agent_error. A subagent left
// open by its turn follows the rule for work left open (unfinish) instead.
func (r *shaper) subagentEnd(p *draft, status string) {
	status = r.text(status, maxMessage)
	if status == "" {
		return
	}
	p.set(SubagentStatus.String(status))
	if status == "error" || status == "failed" {
		p.set(ErrorType.String(ErrAgent))
		p.setStatus(codes.Error, "the subagent ended in error")
	}
}
