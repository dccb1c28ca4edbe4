package spanmap

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/cursor-otel/cursor-otel/internal/pricing"
	"github.com/cursor-otel/cursor-otel/parse"
)

// price prices a generation's usage at its model's price, as a stream's
// session is priced (see cost), adds it to the session's totals, and
// returns the chat span's cost attributes: gen_ai.usage.cost, which
// backends sum over a trace's spans, and the table it came from.
func (h *Hooks) price(st *HookState, model string, u parse.Usage) []attribute.KeyValue {
	if st.Turn == nil {
		return nil // a generation is always in a turn; nothing to sum it into
	}
	if st.Turn.Totals == nil {
		st.Turn.Totals = &HookTotals{}
	}
	t := st.Turn.Totals
	t.Usage.InputTokens += u.InputTokens
	t.Usage.OutputTokens += u.OutputTokens
	t.Usage.CacheReadTokens += u.CacheReadTokens
	t.Usage.CacheCreationTokens += u.CacheCreationTokens
	q, ok := h.rec.prices.Quote(model)
	if !ok {
		t.Unpriced++
		return []attribute.KeyValue{CostPricing.String(Unpriced)}
	}
	usd := q.Cost(pricing.Usage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadTokens, CacheWrite: u.CacheCreationTokens})
	t.CostUSD += usd
	t.Pricing, t.PricedAs = q.Source, q.Key
	return []attribute.KeyValue{GenAICost.Float64(usd), CostCurrency.String(USD), CostPricing.String(q.Source), CostModel.String(q.Key)}
}

// attributes are the session's totals under cursor.usage.* (its
// generations carry the gen_ai.usage.* figures), and its cost when every
// generation's could be priced: never $0 for what no table knows.
func (t *HookTotals) attributes() []attribute.KeyValue {
	if t == nil {
		return nil
	}
	attrs := totalAttributes(t.Usage)
	if t.Unpriced > 0 {
		return append(attrs, CostPricing.String(Unpriced))
	}
	return append(attrs, CostUSD.Float64(t.CostUSD), CostCurrency.String(USD), CostPricing.String(t.Pricing), CostModel.String(t.PricedAs))
}

// compactionAttributes say what a preCompact announced.
func (h *Hooks) compactionAttributes(c parse.Compaction) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if tr := h.rec.text(c.Trigger, maxMessage); tr != "" {
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
	if m := h.rec.text(c.Model, maxMessage); m != "" {
		attrs = append(attrs, CompactionModel.String(m))
	}
	return attrs
}
