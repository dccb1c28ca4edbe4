// Command bench measures cursor-otel against its performance targets and
// prints the figures: replay throughput on a generated stream beside cat
// and jq on the same file, peak memory on a small and a large stream, tool
// spans lost, the wrapper's cost, the passthrough delay per line, and how
// much a collector that is down, refusing or hanging delays exit.
//
// Run it from the repository root:
//
//	go run ./bench                  # 20 MB and 200 MB streams
//	go run ./bench -size 50 -runs 1 # quicker
//
// It exits 1 when a target is missed.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/tracer"
)

func main() {
	size := flag.Int64("size", 200, "the large stream, in MB")
	smallSize := flag.Int64("small", 20, "the small stream, in MB")
	runs := flag.Int("runs", 3, "runs of each replay measurement (the median is shown)")
	wrapRuns := flag.Int("wrap-runs", 30, "runs of the small wrapped run")
	keep := flag.String("dir", "", "write the streams and binaries here and keep them (default: a temporary directory)")
	flag.Parse()
	if err := bench(*size<<20, *smallSize<<20, *runs, *wrapRuns, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// targets collects the verdicts.
type targets struct{ missed int }

func (t *targets) check(ok bool, format string, args ...any) {
	verdict := "ok  "
	if !ok {
		verdict, t.missed = "MISS", t.missed+1
	}
	fmt.Printf("%s %s\n", verdict, fmt.Sprintf(format, args...))
}

func bench(size, smallSize int64, runs, wrapRuns int, dir string) error {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "cursor-otel-bench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	binary, agent := filepath.Join(dir, "cursor-otel"), filepath.Join(dir, "fakeagent")
	launcher = filepath.Join(dir, "launch")
	for pkg, out := range map[string]string{".": binary, "./testdata/fakeagent": agent, "./bench/launch": launcher} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			return fmt.Errorf("build %s (run from the repository root): %v\n%s", pkg, err, b)
		}
	}
	recv, err := otlptest.ListenGRPC("127.0.0.1:0", nil)
	if err != nil {
		return err
	}
	defer recv.Stop()
	recv.CountOnly()
	recs, err := recordings()
	if err != nil {
		return err
	}
	r := replayer{binary: binary, recv: recv}
	var t targets

	fmt.Printf("replay, exporting over OTLP/gRPC to a receiver in this process; median of %d runs\n\n", runs)
	fmt.Printf("%-8s %-22s %9s %10s %11s %9s\n", "stream", "command", "seconds", "MB/s", "peak RSS", "CPU s")
	peaks := map[int64]int64{}
	for _, sz := range []int64{smallSize, size} {
		s, err := generate(r, dir, sz, recs)
		if err != nil {
			return err
		}
		mb := float64(s.counts.Bytes) / 1e6
		row := func(name string, m run) float64 {
			rate := mb / m.wall.Seconds()
			fmt.Printf("%-8s %-22s %9.2f %10.1f %8.1f MiB %9.2f\n", fmt.Sprintf("%.0f MB", mb), name, m.wall.Seconds(), rate, float64(m.peakRSS)/(1<<20), m.cpu.Seconds())
			return rate
		}
		var cat, jq, quiet, tree []run
		lost := 0 // tool spans that did not arrive, over every run
		for range runs {
			m, err := measure(nil, nil, "cat", s.path)
			if err != nil {
				return err
			}
			cat = append(cat, m)
			if m, err = measure(nil, nil, "jq", "-c", ".", s.path); err != nil {
				return fmt.Errorf("jq: %w", err)
			}
			jq = append(jq, m)
			for _, q := range []bool{true, false} {
				m, _, tools, err := r.replay(s.path, q)
				if err != nil {
					return err
				}
				lost += s.counts.ToolCalls - tools
				if q {
					quiet = append(quiet, m)
				} else {
					tree = append(tree, m)
				}
			}
		}
		catRate, jqRate := row("cat", median(cat)), row("jq -c .", median(jq))
		rate := row("cursor-otel replay -q", median(quiet))
		row("cursor-otel replay", median(tree))
		if sz == size {
			t.check(rate >= 10*jqRate, "%.0f MB: replay at %.1f× jq's speed (target 10×), %.3f× cat's", mb, rate/jqRate, rate/catRate)
		} else {
			fmt.Printf("         replay at %.1f× jq's speed, %.3f× cat's (the target is on the large stream)\n", rate/jqRate, rate/catRate)
		}
		peaks[sz] = max(median(quiet).peakRSS, median(tree).peakRSS)
		fmt.Printf("         %d lines, %d sessions, %d tool calls\n", s.counts.Lines, s.counts.Sessions, s.counts.ToolCalls)
		t.check(lost == 0, "%.0f MB: every tool call arrived as a span, in each of %d replays (%d missing)\n", mb, 2*runs, lost)
		os.Remove(s.path)
	}
	peak := float64(peaks[size]) / (1 << 20)
	t.check(peak <= 64, "peak RSS on %d MB: %.1f MiB (target 64 MiB)", size>>20, peak)
	t.check(peaks[size]-peaks[smallSize] <= 16<<20, "peak RSS grows %.1f MiB from %d MB to %d MB (target 16 MiB)",
		float64(peaks[size]-peaks[smallSize])/(1<<20), smallSize>>20, size>>20)

	w := wrapper{binary: binary, agent: agent, recv: recv, runs: wrapRuns}
	alone, wrapped, err := w.cost()
	if err != nil {
		return err
	}
	fmt.Printf("\nwrap: a small traced run (39 lines, 11 spans), median of %d runs: agent alone %.2f ms, through cursor-otel %.2f ms\n",
		wrapRuns, ms(alone), ms(wrapped))
	t.check(wrapped-alone <= 10*time.Millisecond, "wrapper cost %.2f ms (target 10 ms)", ms(wrapped-alone))
	delays, err := w.delays(dir, 200)
	if err != nil {
		return err
	}
	p99 := delays[len(delays)*99/100]
	t.check(p99 < time.Millisecond, "passthrough delay per line over %d lines: median %.3f ms, p99 %.3f ms, worst %.3f ms (target 1 ms)",
		len(delays), ms(delays[len(delays)/2]), ms(p99), ms(delays[len(delays)-1]))
	exits, err := w.exitDelays()
	if err != nil {
		return err
	}
	for _, c := range []string{"down", "refusing", "hanging"} {
		t.check(exits[c] <= tracer.DefaultFlushTimeout, "collector %s: exit delayed %.0f ms at worst (target %v, the flush timeout)", c, ms(exits[c]), tracer.DefaultFlushTimeout)
	}
	if t.missed > 0 {
		return fmt.Errorf("%d targets missed", t.missed)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
