package spanmap

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/cursor-otel/cursor-otel/internal/pricing"
	"github.com/cursor-otel/cursor-otel/parse"
)

// Totals are a turn's usage and cost, whichever source told them: the
// figures its root carries under cursor.usage.*, which reports read. A
// stream's turn is one report; hooks add each generation's; ACP takes its
// prompt answer's usage and the agent's own cost, in its currency.
type Totals struct {
	Usage parse.Usage `json:"usage"`
	// Cost is in Currency: cursor-otel's estimate (USD, Pricing and
	// PricedAs naming the table and its name for the model), or what the
	// agent reported, in the currency it gave ("" when it gave none).
	// Named cost_usd in a hook state for the states written before.
	Cost     float64 `json:"cost_usd"`
	Currency string  `json:"currency,omitempty"`
	Costed   bool    `json:"costed,omitempty"`    // Cost is known (else: unknown, never 0)
	Pricing  string  `json:"pricing,omitempty"`   // the table of the last priced
	PricedAs string  `json:"priced_as,omitempty"` // and its name for the model
	Unpriced int     `json:"unpriced,omitempty"`  // reports with usage no table prices
}

// Add adds a report's usage.
func (t *Totals) Add(u parse.Usage) {
	t.Usage.InputTokens += u.InputTokens
	t.Usage.OutputTokens += u.OutputTokens
	t.Usage.CacheReadTokens += u.CacheReadTokens
	t.Usage.CacheCreationTokens += u.CacheCreationTokens
}

// Estimate adds a report's usage priced at its model's price, in USD,
// and says what it cost; false when no table knows the model (never $0).
func (t *Totals) Estimate(prices *pricing.Table, model string, u parse.Usage) (usd float64, priced bool) {
	t.Add(u)
	q, ok := prices.Quote(model)
	if !ok {
		t.Unpriced++
		return 0, false
	}
	usd = q.Cost(pricing.Usage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadTokens, CacheWrite: u.CacheCreationTokens})
	t.Cost, t.Currency, t.Costed = t.Cost+usd, USD, true
	t.Pricing, t.PricedAs = q.Source, q.Key
	return usd, true
}

// reportCost are the cost attributes of the report Estimate priced last
// (usd, or unpriced): gen_ai.usage.cost, which backends sum over a
// trace's spans, and the table it came from.
func (t *Totals) reportCost(usd float64, priced bool) []attribute.KeyValue {
	if !priced {
		return []attribute.KeyValue{CostPricing.String(Unpriced)}
	}
	return []attribute.KeyValue{GenAICost.Float64(usd), CostCurrency.String(USD), CostPricing.String(t.Pricing), CostModel.String(t.PricedAs)}
}

// attributes are the totals under cursor.usage.*, and the cost.
func (t *Totals) attributes() []attribute.KeyValue {
	if t == nil {
		return nil
	}
	return t.appendCost(t.appendUsage(make([]attribute.KeyValue, 0, 8)))
}

// appendUsage appends the usage totals under cursor.usage.*: as the
// conventions count them, input includes the cached tokens.
func (t *Totals) appendUsage(attrs []attribute.KeyValue) []attribute.KeyValue {
	u := t.Usage
	return append(attrs,
		TotalInputTokens.Int64(u.InputTokens+u.CacheReadTokens+u.CacheCreationTokens), TotalOutputTokens.Int64(u.OutputTokens),
		TotalCacheReadTokens.Int64(u.CacheReadTokens), TotalCacheWriteTokens.Int64(u.CacheCreationTokens))
}

// appendCost appends the cost when it is known for every report
// (unpriced when a table knew none), in its currency, and for an
// estimate the table it came from. The currency is said whenever one
// was given, a cost known or not (ACP: the session's cost is).
func (t *Totals) appendCost(attrs []attribute.KeyValue) []attribute.KeyValue {
	if t.Unpriced > 0 {
		return append(attrs, CostPricing.String(Unpriced))
	}
	if t.Costed || t.Pricing != "" { // (Pricing alone: a hook state from before Costed)
		attrs = append(attrs, CostUSD.Float64(t.Cost))
	}
	currency := t.Currency
	if currency == "" && t.Pricing != "" {
		currency = USD // an estimate's, in a hook state from before Currency
	}
	if currency != "" {
		attrs = append(attrs, CostCurrency.String(currency))
	}
	if t.Pricing != "" {
		attrs = append(attrs, CostPricing.String(t.Pricing), CostModel.String(t.PricedAs))
	}
	return attrs
}

// usageAttributes are a usage's figures by the conventions' names. Their
// input tokens include the cached ones; Cursor's are the fresh input
// alone. Cache writes go under both the conventions' name and the one
// backends read today.
func usageAttributes(u parse.Usage) []attribute.KeyValue {
	return []attribute.KeyValue{
		InputTokens.Int64(u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens), OutputTokens.Int64(u.OutputTokens),
		CacheReadTokens.Int64(u.CacheReadTokens), CacheWriteTokens.Int64(u.CacheCreationTokens), CacheCreateTokens.Int64(u.CacheCreationTokens),
	}
}
