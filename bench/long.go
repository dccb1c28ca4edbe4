package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// thinkTime is how long the real-length agent runs before its first byte:
// a real agent's run is seconds of the model's work before any output,
// and that is the time cursor-otel has to set itself up in.
const thinkTime = 300 * time.Millisecond

// realLength is a real-length run's figures: each command's runs, in
// round order.
type realLength struct {
	alone, wrapped           []time.Duration // the slow agent alone, and through cursor-otel
	firstAlone, firstWrapped []time.Duration // from the start to the agent's first byte on stdout
	version                  []time.Duration // cursor-otel version
	floorWrapped             []time.Duration // the slow agent through floor wrap
}

// realLength measures a traced run of an agent that thinks for thinkTime
// before it prints the small run's recording, alone, through cursor-otel
// and through the floor, beside cursor-otel version, in rounds.
func (w wrapper) realLength(dir string) (realLength, error) {
	script := filepath.Join(dir, "slow-agent.sh")
	body := fmt.Sprintf("#!/bin/sh\nsleep %.1f\ncat \"$AGENT_STREAM\"\n", thinkTime.Seconds())
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		return realLength{}, err
	}
	got, err := rounds(w.runs,
		step{label: "slow agent alone", cmd: command{name: "sh", args: append([]string{script}, streamArgs...), env: w.shellAgent(), firstByte: true}},
		step{label: "slow agent wrapped", cmd: command{name: w.binary, args: streamArgs, firstByte: true,
			env: append(w.shellAgent(), "CURSOR_OTEL_AGENT="+script, "OTEL_EXPORTER_OTLP_ENDPOINT="+w.recv.Endpoint)}},
		step{label: "cursor-otel version", cmd: command{name: w.binary, args: []string{"version"}}},
		step{label: "slow agent through floor wrap", cmd: command{name: w.floor, args: append([]string{"wrap", "sh", script}, streamArgs...),
			env: append(w.shellAgent(), "OTEL_EXPORTER_OTLP_ENDPOINT="+w.recv.Endpoint)}},
	)
	if err != nil {
		return realLength{}, err
	}
	l := realLength{alone: walls(got[0]), wrapped: walls(got[1]), version: walls(got[2]), floorWrapped: walls(got[3])}
	for i := range got[0] {
		a, b := got[0][i], got[1][i]
		if a.firstByte < 0 || b.firstByte < 0 {
			return realLength{}, fmt.Errorf("slow agent: no output (alone %v, wrapped %v): %s", a.firstByte, b.firstByte, b.stderr)
		}
		if b.stderr != "" {
			return realLength{}, fmt.Errorf("slow agent wrapped: %s", b.stderr)
		}
		l.firstAlone, l.firstWrapped = append(l.firstAlone, a.firstByte), append(l.firstWrapped, b.firstByte)
	}
	return l, nil
}
