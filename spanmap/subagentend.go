package spanmap

import "go.opentelemetry.io/otel/codes"

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
