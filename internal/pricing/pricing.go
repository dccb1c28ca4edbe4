// Package pricing estimates what a run cost from the tokens it used: it
// knows prices per million tokens from three places (a user's file,
// Cursor's published prices for its own models, a snapshot of pydantic's
// genai-prices table), finds the price of a model under the name
// cursor-agent prints for it, and multiplies. It knows nothing of streams
// or spans.
package pricing

import (
	"fmt"
	"strconv"
)

//go:generate go run ./internal/genaipricesgen -commit 47df840a5ab10bbcffb8e5ac01b9899032245d1b -date 2026-08-21 -out genai_prices.go

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input      float64 // fresh input, not read from or written to the cache
	Output     float64
	CacheRead  float64
	CacheWrite float64
}

// unset marks a cache price a source does not give.
const unset = -1

// price makes a Price. A cache price not given is the input price: a
// token read from or written to the cache is input, and pricing it at
// nothing would make an unknown look free.
func price(input, output, cacheRead, cacheWrite float64) Price {
	if cacheRead == unset {
		cacheRead = input
	}
	if cacheWrite == unset {
		cacheWrite = input
	}
	return Price{Input: input, Output: output, CacheRead: cacheRead, CacheWrite: cacheWrite}
}

// Usage is what a run used, in tokens, as cursor-agent reports it: Input
// is fresh input only, the cache's tokens apart.
type Usage struct {
	Input, Output, CacheRead, CacheWrite int64
}

// Quote is the price a model was found at: which entry of which table.
type Quote struct {
	Price  Price
	Key    string // the table's name for the model (cursor.cost.model)
	Source string // the table and its date (cursor.cost.pricing)
}

// Cost is the estimate, in US dollars, for u at q's price.
func (q Quote) Cost(u Usage) float64 {
	p := q.Price
	return (float64(u.Input)*p.Input + float64(u.CacheRead)*p.CacheRead +
		float64(u.CacheWrite)*p.CacheWrite + float64(u.Output)*p.Output) / 1e6
}

// USD writes a cost for people: cents from a cent up ($0.47, $12.30),
// two significant digits below ($0.0058), so that a small run does not
// read as free.
func USD(v float64) string {
	if v >= 0.01 || v == 0 {
		return fmt.Sprintf("$%.2f", v)
	}
	return "$" + strconv.FormatFloat(v, 'g', 2, 64)
}
