package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cursor-otel/cursor-otel/internal/synth"
)

// largeLines replays a stream of 40 MB tool results as it is and with
// GOMEMLIMIT=1GiB, without and with content capture, and checks that
// replay's own memory limit costs at most half as much time again: it is
// sized by the longest line, where a fixed one made the collector run
// without pause.
func (r replayer) largeLines(t *targets, dir string, size int64, runs int) error {
	const lineSize = 40 << 20
	path := filepath.Join(dir, "large-lines.ndjson")
	var counts synth.Counts
	err := writeStream(path, func(w io.Writer) (err error) {
		counts, err = synth.LargeLines(w, size, lineSize)
		return err
	})
	if err != nil {
		return err
	}
	defer os.Remove(path)
	mb := float64(counts.Bytes) / 1e6
	fmt.Printf("\nlarge lines: %.0f MB, %d sessions each with a %d MiB tool result; replay --quiet, median of %d runs\n", mb, counts.Sessions, lineSize>>20, runs)
	fmt.Printf("%-50s %8s %9s %11s\n", "settings", "seconds", "MB/s", "peak RSS")
	for _, capture := range []string{"", "CURSOR_OTEL_CAPTURE_CONTENT=true"} {
		var walls [2]float64
		for i, limit := range []string{"", "GOMEMLIMIT=1GiB"} {
			var env []string
			for _, e := range []string{capture, limit} {
				if e != "" {
					env = append(env, e)
				}
			}
			var got []replayed
			for range runs {
				m, err := r.replay(path, true, env...)
				if err != nil {
					return err
				}
				if m.tools != counts.ToolCalls {
					return fmt.Errorf("large lines: %d of %d tool calls arrived", m.tools, counts.ToolCalls)
				}
				got = append(got, m)
			}
			m := median(got)
			walls[i] = m.wall.Seconds()
			label := fmt.Sprint(env)
			fmt.Printf("%-50s %8.2f %9.1f %7.1f MiB\n", label, walls[i], mb/walls[i], float64(m.peakRSS)/(1<<20))
		}
		what := "without capture"
		if capture != "" {
			what = "with capture"
		}
		t.check(walls[0] <= 1.5*walls[1], "large lines %s: replay takes %.2f× as long as with GOMEMLIMIT=1GiB (target at most 1.5×)", what, walls[0]/walls[1])
	}
	return nil
}
