package pricing

// cursorSource names Cursor's own prices in cursor.cost.pricing: the page
// they come from and when they were read there.
const cursorSource = "cursor 2026-08"

// cursorPrices are the prices Cursor publishes for its own models, USD per
// million tokens (https://cursor.com/docs/models-and-pricing, as of
// 2026-08: Auto bills input and cache writes alike). Auto is billed at its
// own rate whichever model it routes to.
var cursorPrices = map[string]Price{
	"auto":              price(1.25, 6, 0.25, 1.25),
	"composer-2":        price(0.5, 2.5, 0.2, 0.5),
	"composer-2.5":      price(0.5, 2.5, 0.2, 0.5),
	"composer-2.5-fast": price(3, 15, 0.5, 3),
}

func fromCursor(name string) (Quote, bool) {
	p, ok := cursorPrices[name]
	return Quote{Price: p, Key: name, Source: cursorSource}, ok
}
