package pricing

import (
	"fmt"
	"testing"
)

// BenchmarkQuote is one session's lookup, as replay makes one per session
// of an archive: a model Cursor reports, priced from the snapshot.
func BenchmarkQuote(b *testing.B) {
	table := Default()
	for b.Loop() {
		if _, ok := table.Quote("claude-4.5-sonnet-thinking"); !ok {
			b.Fatal("not priced")
		}
	}
}

// A table asked for a name again answers as a fresh table does, and
// remembers at most maxCached names: past them it still answers, looking
// each up anew.
func TestQuoteRemembersBoundedly(t *testing.T) {
	table := Default()
	for i := range maxCached + 50 {
		if _, ok := table.Quote(fmt.Sprintf("my-model-%d", i)); ok {
			t.Fatalf("my-model-%d is priced", i)
		}
	}
	if n := len(table.quotes.quotes); n != maxCached {
		t.Fatalf("the table remembers %d names, want %d", n, maxCached)
	}
	for range 3 {
		for _, model := range []string{"Claude 4.5 Sonnet", "composer-2", "GPT-5 Fast", "my-model-3", "my-model-300"} {
			got, gotOK := table.Quote(model)
			want, wantOK := Default().Quote(model)
			if got != want || gotOK != wantOK {
				t.Fatalf("Quote(%q) = %+v, %v; a fresh table gives %+v, %v", model, got, gotOK, want, wantOK)
			}
		}
	}
	if q, _ := table.Quote("Claude 4.5 Sonnet"); q.Key != "claude-sonnet-4-5" {
		t.Fatalf("Claude 4.5 Sonnet priced as %q", q.Key)
	}
}
