package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cursor-otel/cursor-otel/internal/lag"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// wrapper measures cursor-otel in front of the stand-in agent.
type wrapper struct {
	binary, agent string
	recv          *otlptest.Receiver
	runs          int
}

var streamArgs = []string{"-p", "--output-format", "stream-json", "fix the failing test"}

// small is a small traced run: examples/fix-failing-test.ndjson (39
// lines, 11 spans) with no pauses.
var small = []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "FAKEAGENT_SPEED=1000000000"}

// cost is the median wall time of the agent alone and through cursor-otel
// exporting to the local receiver; runs alternate so that the machine's
// drift falls on both.
func (w wrapper) cost() (alone, wrapped time.Duration, err error) {
	var a, b []time.Duration
	for range w.runs {
		r, err := measure(nil, small, w.agent, streamArgs...)
		if err != nil {
			return 0, 0, err
		}
		a = append(a, r.wall)
		r, err = measure(nil, append([]string{"CURSOR_OTEL_AGENT=" + w.agent, "OTEL_EXPORTER_OTLP_ENDPOINT=" + w.recv.Endpoint}, small...), w.binary, streamArgs...)
		if err != nil {
			return 0, 0, err
		}
		if r.exit != 0 || r.stderr != "" {
			return 0, 0, fmt.Errorf("wrapped run: exit %d: %s", r.exit, r.stderr)
		}
		b = append(b, r.wall)
	}
	return medianDuration(a), medianDuration(b), nil
}

// delays are how long each of lines lines, written 5 ms apart, took from
// the agent's write to cursor-otel's stdout, sorted.
func (w wrapper) delays(dir string, lines int) ([]time.Duration, error) {
	path, times := filepath.Join(dir, "delay.ndjson"), filepath.Join(dir, "times")
	os.Remove(times)
	if err := os.WriteFile(path, lag.Stream(lines), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(w.binary, streamArgs...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "OTEL_EXPORTER_OTLP_ENDPOINT=" + w.recv.Endpoint, "CURSOR_OTEL_AGENT=" + w.agent,
		"FAKEAGENT_STREAM=" + path, "FAKEAGENT_LINE_DELAY=5ms", "FAKEAGENT_TIMES=" + times}
	return lag.Lines(cmd, times)
}

// exitDelays is how much later a small run ends through cursor-otel than
// alone when the named collector is down, refusing or hanging: the worst
// of several runs.
func (w wrapper) exitDelays() (map[string]time.Duration, error) {
	down, err := otlptest.ListenDown()
	if err != nil {
		return nil, err
	}
	hanging, stopHanging, err := otlptest.ListenHanging()
	if err != nil {
		return nil, err
	}
	defer stopHanging()
	refusing, err := otlptest.ListenGRPC("127.0.0.1:0", nil)
	if err != nil {
		return nil, err
	}
	defer refusing.Stop()
	refusing.Refuse(status.Error(codes.Unavailable, "overloaded"))

	out := map[string]time.Duration{}
	for _, c := range []struct{ name, endpoint string }{
		{"down", down}, {"refusing", refusing.Endpoint}, {"hanging", hanging},
	} {
		var extra []time.Duration
		for range max(3, w.runs/10) {
			alone, err := measure(nil, small, w.agent, streamArgs...)
			if err != nil {
				return nil, err
			}
			r, err := measure(nil, append([]string{"CURSOR_OTEL_AGENT=" + w.agent, "OTEL_EXPORTER_OTLP_ENDPOINT=" + c.endpoint}, small...), w.binary, streamArgs...)
			if err != nil {
				return nil, err
			}
			if r.exit != 0 {
				return nil, fmt.Errorf("collector %s: exit %d: %s", c.name, r.exit, r.stderr)
			}
			extra = append(extra, r.wall-alone.wall)
		}
		out[c.name] = slices.Max(extra)
	}
	return out, nil
}
