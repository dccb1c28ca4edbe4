package main

import (
	"fmt"
	"slices"
	"time"
)

// rounds runs each of cmds in turn, n times over (A B C, A B C, …), so
// that the machine's drift, on a machine shared with others, falls on each
// alike and the runs of one round can be compared with each other.
// got[i][r] is cmds[i]'s run in round r. A run that fails, or exits with a
// status other than its want, is an error.
func rounds(n int, cmds ...step) (got [][]run, err error) {
	got = make([][]run, len(cmds))
	for range n {
		for i, c := range cmds {
			r, err := c.cmd.measure()
			if err == nil && r.exit != c.exit {
				err = fmt.Errorf("%s: exit %d, want %d: %s", c.label, r.exit, c.exit, r.stderr)
			}
			if err != nil {
				return nil, err
			}
			got[i] = append(got[i], r)
		}
	}
	return got, nil
}

// step is one command of a round, and the status it must exit with.
type step struct {
	label string
	cmd   command
	exit  int
}

// walls are the runs' wall times, in round order.
func walls(runs []run) []time.Duration {
	out := make([]time.Duration, len(runs))
	for i, r := range runs {
		out[i] = r.wall
	}
	return out
}

// minus is a[r] - b[r], round by round.
func minus(a, b []time.Duration) []time.Duration {
	out := make([]time.Duration, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

// ratios is a[r] / b[r], round by round.
func ratios(a, b []time.Duration) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = float64(a[i]) / float64(b[i])
	}
	return out
}

// mid is the median of ds (a copy is sorted).
func mid(ds []time.Duration) time.Duration { return medianDuration(slices.Clone(ds)) }

// midRatio is the median of rs (a copy is sorted).
func midRatio(rs []float64) float64 {
	s := slices.Clone(rs)
	slices.Sort(s)
	return s[len(s)/2]
}
