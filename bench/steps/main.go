// Command steps prints the timeline of a wrapped run: cursor-otel built
// with -tags steplog notes the time of each of its steps (internal/steplog),
// and steps runs it over a shell-script agent that thinks a while and then
// prints the small run's recording, exporting to a receiver in this
// process, and prints each step's median time from the exec, and from the
// agent's exit for the steps after it.
//
//	go build -tags steplog -o /tmp/cursor-otel-steps . && go run ./bench/steps -n 21 /tmp/cursor-otel-steps
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

func main() {
	n := flag.Int("n", 21, "runs")
	think := flag.Duration("think", 300*time.Millisecond, "how long the agent runs before its first byte")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: steps [-n RUNS] [-think DURATION] CURSOR-OTEL-BUILT-WITH-TAGS-STEPLOG")
		os.Exit(2)
	}
	if err := steps(flag.Arg(0), *n, *think); err != nil {
		fmt.Fprintln(os.Stderr, "steps:", err)
		os.Exit(1)
	}
}

// mark is one step of one run: when, from the exec.
type mark struct {
	name string
	at   time.Duration
}

func steps(binary string, n int, think time.Duration) error {
	recv, err := otlptest.ListenGRPC("127.0.0.1:0", nil)
	if err != nil {
		return err
	}
	defer recv.Stop()
	recv.CountOnly()
	dir, err := os.MkdirTemp("", "steps")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "agent.sh")
	body := fmt.Sprintf("#!/bin/sh\nsleep %.3f\ncat \"$AGENT_STREAM\"\n", think.Seconds())
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		return err
	}
	stream, err := filepath.Abs("examples/fix-failing-test.ndjson")
	if err != nil {
		return err
	}
	var runs [][]mark
	for i := range n {
		log := filepath.Join(dir, fmt.Sprintf("run%d", i))
		cmd := exec.Command(binary, "-p", "--output-format", "stream-json", "fix the failing test")
		cmd.Env = append(os.Environ(), "AGENT_STREAM="+stream, "CURSOR_OTEL_AGENT="+script, "CURSOR_OTEL_STEPLOG="+log,
			"OTEL_EXPORTER_OTLP_ENDPOINT="+recv.Endpoint, "CURSOR_OTEL_SPOOL="+filepath.Join(dir, "spool"))
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("run %d: %w", i, err)
		}
		reaped := time.Since(start)
		marks, err := read(log, start)
		if err != nil {
			return err
		}
		runs = append(runs, append(marks, mark{"reaped", reaped}))
	}
	print(runs)
	return nil
}

// read reads a run's step log: the first time of each step.
func read(path string, start time.Time) ([]mark, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var marks []mark
	s := bufio.NewScanner(f)
	for s.Scan() {
		ns, name, _ := strings.Cut(s.Text(), " ")
		t, err := strconv.ParseInt(ns, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if !slices.ContainsFunc(marks, func(m mark) bool { return m.name == name }) {
			marks = append(marks, mark{name, time.Unix(0, t).Sub(start)})
		}
	}
	return marks, s.Err()
}

// print prints each step's median from the exec, in the order of their
// medians, and from the agent's exit for those after it.
func print(runs [][]mark) {
	at := map[string][]time.Duration{}
	after := map[string][]time.Duration{}
	for _, r := range runs {
		i := slices.IndexFunc(r, func(m mark) bool { return m.name == "agent exit" })
		for _, m := range r {
			at[m.name] = append(at[m.name], m.at)
			if i >= 0 {
				after[m.name] = append(after[m.name], m.at-r[i].at)
			}
		}
	}
	names := make([]string, 0, len(at))
	for name := range at {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return int(median(at[a]) - median(at[b])) })
	fmt.Printf("%d runs, medians: ms from the exec; after the agent's exit, ms from it\n", len(runs))
	for _, name := range names {
		fmt.Printf("%-24s %8.2f", name, ms(median(at[name])))
		if d := median(after[name]); d >= 0 && len(after[name]) > 0 {
			fmt.Printf("   +%.2f", ms(d))
		}
		fmt.Println()
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
