package envlist

import "testing"

func TestGet(t *testing.T) {
	env := []string{"A=1", "AB=2", "A=3", "B="}
	for name, want := range map[string]string{"A": "3", "AB": "2", "B": "", "C": ""} {
		if got := Get(env, name); got != want {
			t.Errorf("Get(%q) = %q; want %q", name, got, want)
		}
	}
}
