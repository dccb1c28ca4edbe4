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
	wall    time.Duration
	cpu     time.Duration // user + system
	peakRSS int64         // bytes
	exit    int
	stderr  string
}

// launcher is the path of the built ./bench/launch.
var launcher string

// measure runs a program through the launcher with stdout to /dev/null (or
// to out) and the environment env on top of PATH and HOME, and reports
// what it cost.
func measure(out io.Writer, env []string, name string, args ...string) (run, error) {
	cmd := exec.Command(launcher, append([]string{name}, args...)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	cmd.Stdout = out
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
		return run{}, fmt.Errorf("run %s: %w", name, err)
	}
	report, _ := io.ReadAll(r)
	r.Close()
	_ = cmd.Wait()
	var got run
	if _, err := fmt.Sscan(string(report), &got.wall, &got.cpu, &got.peakRSS, &got.exit); err != nil {
		return run{}, fmt.Errorf("run %s: %s", name, stderr.b)
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

func medianDuration(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
