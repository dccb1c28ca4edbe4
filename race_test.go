//go:build race

package main

// raceEnabled: the race detector slows every process it builds by 2-20×.
const raceEnabled = true
