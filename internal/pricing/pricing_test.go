package pricing

import (
	"github.com/cursor-otel/cursor-otel/internal/ostext"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Names as cursor-agent prints them, and what each is priced as.
func TestQuoteByName(t *testing.T) {
	tests := []struct {
		model, key, source string // key "": unpriced
	}{
		{"Auto", "auto", cursorSource},
		{"auto", "auto", cursorSource},
		{"Composer 2.5", "composer-2.5", cursorSource},
		{"composer-2", "composer-2", cursorSource},
		{"composer-2.5-fast", "composer-2.5-fast", cursorSource},
		{"composer-2-fast", "", ""}, // not composer-2's price, and no table has it
		{"Claude 4 Sonnet", "claude-sonnet-4-0", snapshotSource},
		{"sonnet-4", "claude-sonnet-4-0", snapshotSource},
		{"Claude 4.5 Sonnet", "claude-sonnet-4-5", snapshotSource},
		{"Claude 4.6 Sonnet", "claude-sonnet-4-6", snapshotSource},
		{"Claude 4.6 Opus Thinking", "claude-opus-4-6", snapshotSource},
		{"claude-4.5-opus-high-thinking", "claude-opus-4-5", snapshotSource},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5", snapshotSource},
		{"GPT-5.1 Codex", "gpt-5.1", snapshotSource},
		{"gpt-5.1-codex-mini", "gpt-5.1-codex-mini", snapshotSource},
		{"gpt-5-high", "gpt-5", snapshotSource},
		{"GPT-5 Fast", "gpt-5", snapshotSource},
		{"Gemini 3 Pro", "gemini-3-pro-preview", snapshotSource},
		{"Grok 4", "grok-4-0709", snapshotSource},
		{"grok-code-fast-1", "grok-code-fast-1", snapshotSource},
		{"Claude 4.6 Sonnet 1M", "claude-sonnet-4-6", snapshotSource},
		{"<Modellanzeige-Name>", "", ""},
		{"my-own-model", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		q, ok := Default().Quote(tt.model)
		if ok != (tt.key != "") || q.Key != tt.key || q.Source != tt.source {
			t.Errorf("Quote(%q) = %q from %q (%v), want %q from %q", tt.model, q.Key, q.Source, ok, tt.key, tt.source)
		}
	}
}

// Every model name the recordings and seeds hold is priced, but for the
// seeds' placeholder.
func TestFixtureModelsArePriced(t *testing.T) {
	var files []string
	for _, dir := range []string{"../../../shared/fixtures/real", "../../../shared/seeds"} {
		found, _ := filepath.Glob(filepath.Join(dir, "*"))
		files = append(files, found...)
	}
	if len(files) == 0 {
		t.Skip("../shared is not beside the repository")
	}
	model := regexp.MustCompile(`"model"\s*:\s*"([^"]+)"`)
	seen := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, m := range model.FindAllStringSubmatch(string(data), -1) {
			seen[m[1]] = true
		}
	}
	if len(seen) < 4 {
		t.Fatalf("found %d model names, want at least 4: %v", len(seen), seen)
	}
	for name := range seen {
		_, ok := Default().Quote(name)
		if placeholder := strings.HasPrefix(name, "<"); ok == placeholder {
			t.Errorf("%q priced: %v", name, ok)
		}
	}
}

// The formula to the cent on a hand-computed case: fresh input, cache
// reads and writes and output each at their price.
func TestCost(t *testing.T) {
	q := Quote{Price: price(3, 15, 0.3, 3.75)}
	u := Usage{Input: 1_200, CacheRead: 480_000, CacheWrite: 36_000, Output: 9_500}
	// 1200×3 + 480000×0.3 + 36000×3.75 + 9500×15 = 3600 + 144000 + 135000 + 142500 = 425100 → $0.4251
	if got := q.Cost(u); math.Abs(got-0.4251) > 1e-9 {
		t.Errorf("cost %.6f, want 0.425100", got)
	}
	if got := q.Cost(Usage{}); got != 0 {
		t.Errorf("no tokens cost %v", got)
	}
	// A cache price not given is the input price, never free.
	if p := price(2, 8, unset, unset); p.CacheRead != 2 || p.CacheWrite != 2 {
		t.Errorf("price with no cache prices: %+v", p)
	}
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// A user's file comes first, exact names before globs, longer globs first.
func TestUserFile(t *testing.T) {
	f := writeFile(t, `{"models": {
		"auto": {"input": 1, "output": 2},
		"claude-*": {"input": 10, "output": 20, "cache_read": 1, "cache_write": 12},
		"claude-sonnet-*": {"input": 4, "output": 16},
		"Team-Model": {"input": 0.1, "output": 0.2, "cache_read": 0.01}
	}}`)
	table, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		model, key string
		price      Price
	}{
		{"Auto", "auto", price(1, 2, unset, unset)},                          // over Cursor's
		{"Claude 4.6 Sonnet", "claude-sonnet-*", price(4, 16, unset, unset)}, // the longer glob, over the snapshot
		{"Claude 4.6 Opus", "claude-*", price(10, 20, 1, 12)},
		{"team-model", "Team-Model", price(0.1, 0.2, 0.01, unset)},
		{"GPT-5", "gpt-5", price(1.25, 10, 0.125, unset)}, // not in the file: the snapshot
	}
	for _, tt := range tests {
		q, ok := table.Quote(tt.model)
		if !ok || q.Key != tt.key || q.Price != tt.price {
			t.Errorf("Quote(%q) = %q %+v (%v), want %q %+v", tt.model, q.Key, q.Price, ok, tt.key, tt.price)
		}
	}
	if q, _ := table.Quote("auto"); q.Source != "file prices.json" {
		t.Errorf("source %q", q.Source)
	}
}

// A user's entry named as the stream names the model matches it, case and
// blanks aside, over Cursor's prices and the snapshot, and is quoted as
// the user wrote it.
func TestUserFileNames(t *testing.T) {
	tests := []struct {
		name         string
		file         string // the models object
		model        string // as the stream gives it
		key          string // cursor.cost.model; "" for not the user's
		input, cache float64
	}{
		{"a Cursor display name", `{"Composer 2.5": {"input": 9, "output": 1}}`, "Composer 2.5", "Composer 2.5", 9, 9},
		{"a display name, another stream spelling", `{"Composer 2.5": {"input": 9, "output": 1}}`, "composer-2.5", "Composer 2.5", 9, 9},
		{"a snapshot model's display name", `{"Sonnet 4.6 1M": {"input": 7, "output": 1, "cache_read": 0.7}}`, "Sonnet 4.6 1M", "Sonnet 4.6 1M", 7, 0.7},
		{"not the name without its setting", `{"Sonnet 4.6 1M": {"input": 7, "output": 1}}`, "Sonnet 4.6", "", 0, 0},
		{"case aside", `{"COMPOSER 2.5": {"input": 9, "output": 1}}`, "composer 2.5", "COMPOSER 2.5", 9, 9},
		{"blanks aside", `{" Sonnet  4.6\t1M ": {"input": 7, "output": 1}}`, "Sonnet 4.6 1M", " Sonnet  4.6\t1M ", 7, 7},
		{"the stream's blanks aside", `{"Sonnet 4.6 1M": {"input": 7, "output": 1}}`, " sonnet 4.6  1m", "Sonnet 4.6 1M", 7, 7},
		{"a glob as written", `{"Auto*": {"input": 5, "output": 1}}`, "Auto", "Auto*", 5, 5},
		{"a glob with blanks", `{"Claude 4.6 *": {"input": 6, "output": 1}}`, "Claude 4.6 Opus Thinking", "Claude 4.6 *", 6, 6},
		{"a display name before a glob", `{"Composer*": {"input": 1, "output": 1}, "Composer 2.5 Fast": {"input": 8, "output": 1}}`, "Composer 2.5 Fast", "Composer 2.5 Fast", 8, 8},
		{"a longer glob first", `{"*": {"input": 1, "output": 1}, "Composer 2.5*": {"input": 8, "output": 1}}`, "composer-2.5-fast", "Composer 2.5*", 8, 8},
		{"one name twice at one price", `{"Auto": {"input": 2, "output": 1}, "auto": {"input": 2, "output": 1}}`, "AUTO", "Auto", 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, err := Load(writeFile(t, `{"models": `+tt.file+`}`))
			if err != nil {
				t.Fatal(err)
			}
			q, ok := table.Quote(tt.model)
			if tt.key == "" {
				if ok && q.Source == "file prices.json" {
					t.Errorf("Quote(%q) = the user's %q, want another table's", tt.model, q.Key)
				}
				return
			}
			if !ok || q.Key != tt.key || q.Source != "file prices.json" || q.Price.Input != tt.input || q.Price.CacheRead != tt.cache {
				t.Errorf("Quote(%q) = %q from %q %+v (%v), want %q from the file at %v in, %v cache read",
					tt.model, q.Key, q.Source, q.Price, ok, tt.key, tt.input, tt.cache)
			}
		})
	}
}

// A wrong file is said in one line naming the file and what is wrong.
func TestBadUserFiles(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{`models: {}`, "not JSON"},
		{`{"models": {}}`, "no models in it"},
		{`{"modles": {"x": {"input": 1, "output": 2}}}`, "not JSON"},
		{`{"models": {"x": {"input": -1, "output": 2}}}`, `"x": a negative input price (-1)`},
		{`{"models": {"x": {"input": 1}}}`, `"x": input and output prices are required`},
		{`{"models": {"x": {"input": 1, "output": 2, "cache": 3}}}`, `"x": want {"input"`},
		{`{"models": {"x": {"input": "1", "output": 2}}}`, `"x": want {"input"`},
		{`{"models": {"[x": {"input": 1, "output": 2}}}`, `"[x": not a name or a glob`},
		{`{"models": {" ( ) ": {"input": 1, "output": 2}}}`, `" ( ) ": not a model's name`},
		{`{"models": {"Composer 2.5": {"input": 1, "output": 2}, "composer-2.5": {"input": 3, "output": 2}}}`, `"Composer 2.5" and "composer-2.5" are one model at two prices`},
	} {
		_, err := Load(writeFile(t, tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "prices.json") || strings.Contains(err.Error(), "\n") {
			t.Errorf("Load(%s) = %v, want one line naming the file and %q", tt.text, err, tt.want)
		}
	}
	missing := filepath.Join(t.TempDir(), "missing.json")
	_, err := Load(missing)
	if err == nil || !strings.Contains(err.Error(), "missing.json: "+ostext.Missing(missing)) {
		t.Errorf("a missing file: %v", err)
	}
}

// The snapshot is whole: the providers Cursor offers, every rule usable,
// every price a price.
func TestSnapshot(t *testing.T) {
	var ids []string
	models := 0
	for _, p := range snapshot() {
		ids = append(ids, p.id)
		for _, m := range p.models {
			models++
			pr := m.price
			if pr.Input < 0 || pr.Output <= 0 || pr.CacheRead < 0 || pr.CacheWrite < 0 {
				t.Errorf("%s %s: price %+v", p.id, m.id, pr)
			}
			if !m.match.matches(strings.ToLower(m.id)) && !strings.HasSuffix(m.id, "-latest") {
				// Most models match their own id; a few name a family.
				t.Logf("%s %s does not match its id", p.id, m.id)
			}
		}
	}
	for _, want := range []string{"anthropic", "openai", "google", "x-ai"} {
		if !slices.Contains(ids, want) {
			t.Errorf("no %s in the snapshot", want)
		}
	}
	if models < 150 {
		t.Errorf("%d models, want the snapshot's ~220", models)
	}
}
