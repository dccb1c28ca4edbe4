package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"time"
)

// run is one measured run of a command.
type run struct {
	wall      time.Duration
	cpu       time.Duration // user + system
	peakRSS   int64         // bytes
	exit      int
	stderr    string
	firstByte time.Duration // from the start to the first byte on stdout; -1 for none (command.firstByte only)
}

// launcher is the path of the built ./bench/launch.
var launcher string

// spoolDir is the spool every measured run of cursor-otel gets, in the
// bench's directory: nothing a run keeps goes to the user's own, to be
// delivered by the user's next run.
var spoolDir string

// baseEnv is what every measured command's environment starts with.
func baseEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "CURSOR_OTEL_SPOOL=" + spoolDir}
}

// command is a program to measure.
type command struct {
	name      string
	args      []string
	env       []string  // on top of baseEnv; later entries win
	stdin     io.Reader // nil: empty
	stdout    io.Writer // nil: /dev/null
	firstByte bool      // time the first byte of stdout
}

// measure runs a program through the launcher with stdout to /dev/null (or
// to out) and the environment env on top of baseEnv, and reports what it
// cost.
func measure(out io.Writer, env []string, name string, args ...string) (run, error) {
	return command{name: name, args: args, env: env, stdout: out}.measure()
}

func (c command) measure() (run, error) {
	args := append([]string{c.name}, c.args...)
	if c.firstByte {
		args = append([]string{"-first-byte"}, args...)
	}
	cmd := exec.Command(launcher, args...)
	cmd.Env = append(baseEnv(), c.env...)
	cmd.Stdin, cmd.Stdout = c.stdin, c.stdout
	var stderr limited
	cmd.Stderr = &stderr
	r, w, err := os.Pipe()
	if err != nil {
		return run{}, err
	}
	cmd.ExtraFiles = []*os.File{w}
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		return run{}, fmt.Errorf("run %s: %w", c.name, err)
	}
	report, _ := io.ReadAll(r)
	r.Close()
	_ = cmd.Wait()
	var got run
	if _, err := fmt.Sscan(string(report), &got.wall, &got.cpu, &got.peakRSS, &got.exit, &got.firstByte); err != nil {
		return run{}, fmt.Errorf("run %s: %s", c.name, stderr.b)
	}
	got.stderr = string(stderr.b)
	return got, nil
}

// limited keeps the first 4 KiB written to it.
type limited struct{ b []byte }

func (l *limited) Write(p []byte) (int, error) {
	if room := 4<<10 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// median of runs by wall time; the runs are sorted in place.
func median[R interface{ duration() time.Duration }](runs []R) R {
	slices.SortFunc(runs, func(a, b R) int { return int(a.duration() - b.duration()) })
	return runs[len(runs)/2]
}

func (r run) duration() time.Duration { return r.wall }

// medianDuration is the median of ds, which it sorts.
func medianDuration(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
