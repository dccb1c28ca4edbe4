// Package synthtest holds the benchmarks' streams, built in memory from
// recordings with package synth.
package synthtest

import (
	"bytes"

	"github.com/cursor-otel/cursor-otel/internal/synth"
)

// MixOf is a synth.Mix of at least size bytes, in memory, built from the
// recordings matching the patterns (the benchmarks' stream).
func MixOf(size int64, patterns ...string) ([]byte, synth.Counts, error) {
	recs, err := synth.Recordings(patterns...)
	if err != nil {
		return nil, synth.Counts{}, err
	}
	var b bytes.Buffer
	counts, err := synth.Mix(&b, size, recs, synth.Counts{})
	return b.Bytes(), counts, err
}

// DenseOf is a synth.Dense stream of at least size bytes, in memory, built from
// the recordings matching the patterns.
func DenseOf(size int64, patterns ...string) ([]byte, synth.Counts, error) {
	recs, err := synth.Recordings(patterns...)
	if err != nil {
		return nil, synth.Counts{}, err
	}
	var pass synth.Counts
	for _, r := range recs {
		pass.Bytes += int64(len(r))
		pass.Lines += bytes.Count(r, []byte{'\n'})
	}
	var b bytes.Buffer
	counts, err := synth.Dense(&b, size, recs, pass)
	return b.Bytes(), counts, err
}
