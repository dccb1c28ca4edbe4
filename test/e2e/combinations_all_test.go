//go:build linux && combinations

package e2e

// allCombinations: every mode × shape × spool × collector (.ci/run).
const allCombinations = true

// The whole suite runs GOMAXPROCS cells at once, as it always has.
func init() { keepParallel = true }
