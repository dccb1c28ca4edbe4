package replay

import (
	"fmt"
	"math"
	"runtime/debug"
	"strings"
	"testing"
)

// TestMemoryLimitGrowsWithTheLongestLine: a stream of 40 MB tool results
// gets room for them instead of a collector running without pause, and a
// GOMEMLIMIT the user set is left as it is.
func TestMemoryLimitGrowsWithTheLongestLine(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	longer := memoryLimit(func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got != 48<<20 {
		t.Fatalf("limit before any long line: %d MiB, want 48", got>>20)
	}
	longer(40 << 20)
	if got := debug.SetMemoryLimit(-1); got != (48+8*40)<<20 {
		t.Fatalf("limit after a 40 MiB line: %d MiB, want 368", got>>20)
	}

	debug.SetMemoryLimit(1 << 30)
	env := map[string]string{"GOMEMLIMIT": "1GiB"}
	if memoryLimit(func(k string) string { return env[k] }) != nil {
		t.Fatal("with GOMEMLIMIT set, replay still sizes the limit")
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<30 {
		t.Fatalf("the user's GOMEMLIMIT became %d MiB", got>>20)
	}
}

// GCEnv says, as the environment would, what memoryLimit sets: a program
// given it collects as replay does.
func TestGCEnvIsWhatReplaySets(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	memoryLimit(func(string) string { return "" })
	percent := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(-1)
	want := fmt.Sprintf("GOGC=%d GOMEMLIMIT=%d", percent, limit)
	if got := strings.Join(GCEnv(), " "); got != want {
		t.Errorf("GCEnv() = %q, replay sets %q", got, want)
	}
}
