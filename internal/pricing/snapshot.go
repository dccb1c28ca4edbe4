package pricing

// snapshotProvider is a provider of genai-prices' table: the names it
// claims and its models.
type snapshotProvider struct {
	id     string
	match  rule
	models []snapshotModel
}

type snapshotModel struct {
	id    string
	match rule
	price Price
}

// fromSnapshot finds name as genai-prices would: among the models of the
// providers that claim it first, then of the others, the first model
// whose rule matches.
func fromSnapshot(name string) (Quote, bool) {
	for _, claimed := range []bool{true, false} {
		for _, p := range snapshot() {
			if p.match.matches(name) != claimed {
				continue
			}
			for _, m := range p.models {
				if m.match.matches(name) {
					return Quote{Price: m.price, Key: m.id, Source: snapshotSource}, true
				}
			}
		}
	}
	return Quote{}, false
}
