package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
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

// launcherEnv makes this program a launcher: it runs its arguments as a
// command and writes what the command cost to file descriptor 3.
//
// Why a launcher: os/exec starts a child with vfork, sharing this
// process's memory until exec, and Linux counts that memory in the child's
// peak RSS. The launcher is a small process, so the peak it reports is the
// command's own.
const launcherEnv = "CURSOR_OTEL_BENCH_LAUNCHER"

// launch is the launcher's whole job.
func launch(args []string) {
	report := os.NewFile(3, "report")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, launcherEnv+"=") })
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
		os.Exit(1)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	fmt.Fprintf(report, "%d %d %d %d\n", wall, ru.Utime.Nano()+ru.Stime.Nano(), ru.Maxrss<<10, cmd.ProcessState.ExitCode())
	report.Close()
}

// measure runs a program through the launcher with stdout to /dev/null (or
// to out) and the environment env on top of PATH and HOME, and reports
// what it cost.
func measure(out io.Writer, env []string, name string, args ...string) (run, error) {
	self, err := os.Executable()
	if err != nil {
		return run{}, err
	}
	cmd := exec.Command(self, append([]string{name}, args...)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), launcherEnv + "=1"}, env...)
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
func median(runs []run) run {
	slices.SortFunc(runs, func(a, b run) int { return int(a.wall - b.wall) })
	return runs[len(runs)/2]
}

func medianDuration(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
