//go:build linux && !combinations

package e2e

// allCombinations: go test ./... runs the cells TestCombinations picks;
// -tags combinations runs them all.
const allCombinations = false
