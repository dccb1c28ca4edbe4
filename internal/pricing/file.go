package pricing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// userEntry is one model of a user's price file.
type userEntry struct {
	written string // the entry's name as the user wrote it (cursor.cost.model)
	pattern string // that name or glob (path.Match) spelled as names are compared
	price   Price
}

// userFile is a user's price file: {"models": {"NAME-OR-GLOB": {"input":
// 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75}}}, USD per
// million tokens; the cache prices may be left out (they are then the
// input price).
type userFile struct {
	Models map[string]json.RawMessage `json:"models"`
}

type userPrice struct {
	Input      *float64 `json:"input"`
	Output     *float64 `json:"output"`
	CacheRead  *float64 `json:"cache_read"`
	CacheWrite *float64 `json:"cache_write"`
}

// readUserFile reads a price file, saying what is wrong with it in words
// that name the file and the entry. An entry is compared with a model's
// name in one spelling, case and blanks aside (see spelling), so that a
// name copied from a stream ("Composer 2.5") matches that stream. Exact
// names come before globs, and longer globs (more specific) before
// shorter ones; two entries that are one name must agree on its price.
func readUserFile(file string) ([]userEntry, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("prices %s: %w", file, errors.Unwrap(err))
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("prices %s: %s", file, fmt.Sprintf(format, args...))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f userFile
	if err := dec.Decode(&f); err != nil {
		return nil, bad("not JSON of the form {\"models\": {\"NAME\": {\"input\": 3, \"output\": 15}}} (%v)", err)
	}
	if len(f.Models) == 0 {
		return nil, bad("no models in it")
	}
	var entries []userEntry
	for name, raw := range f.Models {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		var p userPrice
		if err := dec.Decode(&p); err != nil {
			return nil, bad("%q: want {\"input\": …, \"output\": …, \"cache_read\": …, \"cache_write\": …} (%v)", name, err)
		}
		if p.Input == nil || p.Output == nil {
			return nil, bad("%q: input and output prices are required (USD per million tokens)", name)
		}
		cacheRead, cacheWrite := float64(unset), float64(unset)
		if p.CacheRead != nil {
			cacheRead = *p.CacheRead
		}
		if p.CacheWrite != nil {
			cacheWrite = *p.CacheWrite
		}
		for _, v := range []struct {
			what string
			v    *float64
		}{{"input", p.Input}, {"output", p.Output}, {"cache_read", p.CacheRead}, {"cache_write", p.CacheWrite}} {
			if v.v != nil && *v.v < 0 {
				return nil, bad("%q: a negative %s price (%g)", name, v.what, *v.v)
			}
		}
		pattern := spelling(name)
		if pattern == "" {
			return nil, bad("%q: not a model's name", name)
		}
		if _, err := path.Match(pattern, ""); err != nil {
			return nil, bad("%q: not a name or a glob (%v)", name, err)
		}
		entries = append(entries, userEntry{written: name, pattern: pattern, price: price(*p.Input, *p.Output, cacheRead, cacheWrite)})
	}
	slices.SortFunc(entries, func(a, b userEntry) int {
		ga, gb := isGlob(a.pattern), isGlob(b.pattern)
		switch {
		case ga != gb && !ga:
			return -1
		case ga != gb:
			return 1
		case len(a.pattern) != len(b.pattern):
			return len(b.pattern) - len(a.pattern)
		case a.pattern != b.pattern:
			return strings.Compare(a.pattern, b.pattern)
		}
		return strings.Compare(a.written, b.written)
	})
	for i := 1; i < len(entries); i++ {
		if a, b := entries[i-1], entries[i]; a.pattern == b.pattern && a.price != b.price {
			return nil, bad("%q and %q are one model at two prices", a.written, b.written)
		}
	}
	return entries, nil
}

func isGlob(p string) bool { return strings.ContainsAny(p, "*?[") }

// fromUser finds the first of a user's entries that matches one of the
// names (Candidates: the stream's name in the entries' spelling first):
// the most specific entry wins, whichever form of the name it is written
// for, and is quoted as the user wrote it.
func fromUser(entries []userEntry, source string, names []string) (Quote, bool) {
	for _, e := range entries {
		for _, name := range names {
			if ok, _ := path.Match(e.pattern, name); ok {
				return Quote{Price: e.price, Key: e.written, Source: source}, true
			}
		}
	}
	return Quote{}, false
}

// userSource names a user's file in cursor.cost.pricing.
func userSource(file string) string { return "file " + filepath.Base(file) }
