//go:build linux && combinations

package main

// allCombinations: every mode × shape × spool × collector (.ci/run).
const allCombinations = true
