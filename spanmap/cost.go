package spanmap

import (
	"fmt"

	"go.opentelemetry.io/otel/attribute"

	"github.com/cursor-otel/cursor-otel/parse"
)

// Unpriced is cursor.cost.pricing for a model no price table knows.
const Unpriced = "unpriced"

// USD is the currency of cursor-otel's own estimates.
const USD = "USD"

// cost prices the session's usage at its model's price: the attributes
// that say so, and why the session is over budget ("" when it is not, or
// no budget was set). A cost that cannot be known (no usage reported, a
// model no table knows) cannot be shown under a budget.
func (s *session) cost() (attrs []attribute.KeyValue, over string) {
	budget := s.rec.opts.MaxBudgetUSD
	if budget > 0 {
		attrs = append(attrs, CostBudget.Float64(budget))
	}
	var usage *parse.Usage
	if s.result != nil {
		usage = s.result.Usage
	}
	if usage == nil {
		if budget > 0 {
			over = fmt.Sprintf("no usage reported: the cost cannot be shown under the budget of $%.2f", budget)
		}
		return attrs, over
	}
	// The session's one report is its totals, and its own cost.
	var t Totals
	usd, priced := t.Estimate(s.rec.prices, s.model, *usage)
	attrs = t.appendCost(t.appendUsage(attrs))
	if !priced {
		if budget > 0 {
			over = fmt.Sprintf("model %q is unpriced: the cost cannot be shown under the budget of $%.2f", s.model, budget)
		}
		return attrs, over
	}
	attrs = append(attrs, GenAICost.Float64(usd))
	if budget > 0 && usd > budget {
		over = fmt.Sprintf("estimated cost $%.2f is over the budget of $%.2f by $%.2f", usd, budget, usd-budget)
	}
	return attrs, over
}
