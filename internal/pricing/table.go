package pricing

// Table finds a model's price: in a user's file first, then among
// Cursor's own models, then in the genai-prices snapshot.
type Table struct {
	user       []userEntry
	userSource string
	quotes     quoteCache
}

// Default is the table without a user's file.
func Default() *Table { return &Table{} }

// Load is the table with a user's price file over the defaults; an error
// says what is wrong with the file.
func Load(file string) (*Table, error) {
	if file == "" {
		return Default(), nil
	}
	entries, err := readUserFile(file)
	if err != nil {
		return nil, err
	}
	return &Table{user: entries, userSource: userSource(file)}, nil
}

// Quote finds model's price, false when no table knows it. The user's
// entries and the snapshot are tried against each candidate name (see
// Candidates), Cursor's own models against the exact name.
func (t *Table) Quote(model string) (Quote, bool) {
	if q, ok, known := t.quotes.get(model); known {
		return q, ok
	}
	q, ok := t.find(model)
	t.quotes.put(model, q, ok)
	return q, ok
}

func (t *Table) find(model string) (Quote, bool) {
	candidates := Candidates(model)
	if len(candidates) == 0 {
		return Quote{}, false
	}
	if q, ok := fromUser(t.user, t.userSource, candidates); ok {
		return q, true
	}
	// Cursor's own models by their exact name: composer-2-fast is not
	// composer-2 at composer-2's price.
	if q, ok := fromCursor(candidates[0]); ok {
		return q, true
	}
	for _, name := range candidates {
		if q, ok := fromSnapshot(name); ok {
			return q, true
		}
	}
	return Quote{}, false
}
