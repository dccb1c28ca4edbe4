//go:build race

package e2e

// raceEnabled: the race detector slows every process it builds by 2-20×.
const raceEnabled = true
