//go:build linux && combinations

package e2e

// allCombinations: every mode × shape × spool × collector (.ci/run).
const allCombinations = true
