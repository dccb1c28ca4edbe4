package parse

import (
	"slices"
	"testing"
)

// A question's answer names the options chosen, beside its outcome or in
// it; other answers name none.
func TestACPChosen(t *testing.T) {
	for _, tt := range []struct {
		result string
		want   []string
	}{
		{`{"outcome":{"outcome":"answered","answers":[{"questionId":"db","selectedOptionIds":["pg"]},{"questionId":"os","selectedOptionIds":["linux","mac"]}]}}`, []string{"pg", "linux", "mac"}},
		{`{"outcome":"answered","answers":[{"questionId":"db","selectedOptionIds":["pg"]}]}`, []string{"pg"}},
		{`{"outcome":{"outcome":"cancelled"}}`, nil},
		{`{"outcome":"accepted"}`, nil},
		{`[1,2]`, nil},
		{`{"answers":"nope"}`, nil},
	} {
		if got := acpChosen([]byte(tt.result)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.result, got, tt.want)
		}
	}
}
