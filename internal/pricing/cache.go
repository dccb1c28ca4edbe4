package pricing

import "sync"

// maxCached bounds the names a Table remembers: a stream names a few
// models, and one that names a new one in every session must not grow
// the cache without end.
const maxCached = 256

// quoteCache remembers each model name's quote. A lookup tries every rule
// of the snapshot against several spellings of the name, compiling the
// regular expressions among them (docs/performance.md, "measured
// choices"), and replay makes one for every session of an archive.
type quoteCache struct {
	mu     sync.Mutex
	quotes map[string]cachedQuote
}

type cachedQuote struct {
	q  Quote
	ok bool
}

func (c *quoteCache) get(model string) (q Quote, ok, known bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	got, known := c.quotes[model]
	return got.q, got.ok, known
}

func (c *quoteCache) put(model string, q Quote, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.quotes == nil {
		c.quotes = map[string]cachedQuote{}
	}
	if len(c.quotes) < maxCached {
		c.quotes[model] = cachedQuote{q, ok}
	}
}
