// Package lag measures how long each line an agent writes takes to come
// out of cursor-otel's stdout: the passthrough delay the tests bound and
// the bench reports.
package lag

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// Stream is n small stream-json lines for the stand-in agent to write.
func Stream(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"type":"thinking","subtype":"delta","text":"t%d","session_id":"s"}`+"\n", i)
	}
	return b.Bytes()
}

// Lines runs cmd, whose agent appends "line unix-nanoseconds" to the file
// times as it writes each line (the stand-in's FAKEAGENT_TIMES), notes when
// each line arrives on cmd's stdout, and returns the delays, sorted.
func Lines(cmd *exec.Cmd, times string) ([]time.Duration, error) {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var arrived []time.Time
	r := bufio.NewReader(stdout)
	for {
		if _, err := r.ReadBytes('\n'); err != nil {
			break
		}
		arrived = append(arrived, time.Now())
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("run %s: %w", cmd.Path, err)
	}
	written, err := os.ReadFile(times)
	if err != nil {
		return nil, err
	}
	var delays []time.Duration
	for i, line := range strings.Split(strings.TrimSpace(string(written)), "\n") {
		var n int
		var at int64
		if _, err := fmt.Sscan(line, &n, &at); err != nil || i >= len(arrived) {
			return nil, fmt.Errorf("line %d of %s: %q, %d lines arrived", i+1, times, line, len(arrived))
		}
		delays = append(delays, arrived[i].Sub(time.Unix(0, at)))
	}
	slices.Sort(delays)
	return delays, nil
}
