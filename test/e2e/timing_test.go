package e2e

import "testing"

// timingChecked says whether a test may assert a bound on time or memory:
// not under -race (it slows and enlarges what it builds several times
// over), nor under -short (for a loaded machine). The figures themselves
// are go run ./bench's; a test's bounds only catch a path that waits where
// it must not, and must not flake on a busy machine.
func timingChecked(t *testing.T) bool {
	t.Helper()
	if raceEnabled || testing.Short() {
		t.Log("time and memory bounds not checked under -race or -short")
		return false
	}
	return true
}
