package spanmap

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/cursor-otel/cursor-otel/parse"
)

// price prices a generation's usage at its model's price, as a stream's
// session is priced (see cost), adds it to the turn's totals, and returns
// the chat span's cost attributes.
func (h *Hooks) price(st *HookState, model string, u parse.Usage) []attribute.KeyValue {
	if st.Turn == nil {
		return nil // a generation is always in a turn; nothing to sum it into
	}
	if st.Turn.Totals == nil {
		st.Turn.Totals = &Totals{}
	}
	return st.Turn.Totals.reportCost(st.Turn.Totals.Estimate(h.prices, model, u))
}

// compactionAttributes say what a preCompact announced.
func (h *Hooks) compactionAttributes(c parse.Compaction) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if tr := h.text(c.Trigger, maxMessage); tr != "" {
		attrs = append(attrs, CompactionTrigger.String(tr))
	}
	if c.MessageCount != nil {
		attrs = append(attrs, CompactionMessages.Int64(*c.MessageCount))
	}
	if c.MessagesToCompact != nil {
		attrs = append(attrs, CompactionCompacted.Int64(*c.MessagesToCompact))
	}
	if c.First != nil {
		attrs = append(attrs, CompactionFirst.Bool(*c.First))
	}
	if c.ContextTokens != nil {
		attrs = append(attrs, CompactionTokens.Int64(*c.ContextTokens))
	}
	if c.ContextWindow != nil {
		attrs = append(attrs, CompactionWindow.Int64(*c.ContextWindow))
	}
	if c.ContextPercent != nil {
		attrs = append(attrs, CompactionPercent.Float64(*c.ContextPercent))
	}
	if m := h.text(c.Model, maxMessage); m != "" {
		attrs = append(attrs, CompactionModel.String(m))
	}
	return attrs
}
