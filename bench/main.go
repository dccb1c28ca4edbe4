// Command bench measures cursor-otel against its performance targets, each
// beside its peer or floor, and prints the figures: replay throughput on
// generated streams beside cat, jq and the floor, peak memory, tool spans
// lost; the wrapper's cost on a small run beside otel-cli exec (the peer),
// to a receiver that answers at once and to one that takes its time as a
// real collector does, and on a real-length run beside the floor; the
// time to the agent's first byte; the passthrough delay per line; how much a collector
// that is down, refusing or hanging delays exit; and a hook event beside
// cursor-otel's own start. The floor, bench/floor, is the same work done
// by the OpenTelemetry SDK and OTLP/gRPC exporter alone: the least any
// program built on them can cost. bench/README.md says more.
//
// Run it from the repository root:
//
//	go run ./bench                  # 20 MB and 200 MB streams
//	go run ./bench -size 50 -runs 1 # quicker
//	go run ./bench -only wrap       # the wrapper and hooks only
//
// It exits 1 when a target is missed.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlprecv"
	"github.com/cursor-otel/cursor-otel/tracer"
)

func main() {
	size := flag.Int64("size", 200, "the large stream, in MB")
	smallSize := flag.Int64("small", 20, "the small stream, in MB")
	runs := flag.Int("runs", 3, "runs of each replay measurement (the median is shown)")
	wrapRuns := flag.Int("wrap-runs", 31, "rounds of the wrapped runs")
	hookEvents := flag.Int("hook-events", 20, "hook events, with the collector up and again down")
	acpRounds := flag.Int("acp-rounds", 12, "rounds of ACP sessions (direct, relay, cursor-otel): one round's p99 moves by milliseconds, and the 1 ms target is judged on the median of a dozen")
	acpPrompts := flag.Int("acp-prompts", 600, "prompts in each ACP session sent back to back")
	acpPaced := flag.Int("acp-paced", 300, "prompts in each ACP session sent 25 ms apart")
	answerAfter := flag.Duration("answer-after", time.Millisecond, "how long the receiver takes to answer each export in the wrapped runs, as a real collector does (the small run is also measured against one that answers at once)")
	only := flag.String("only", "", "measure only replay, only wrap (the wrapper and hooks), only hook, or only acp")
	keep := flag.String("dir", "", "write the streams and binaries here and keep them (default: a temporary directory)")
	binary := flag.String("binary", "", "measure this cursor-otel binary (an earlier build, to compare) instead of building the repository's")
	flag.Parse()
	c := config{size: *size << 20, smallSize: *smallSize << 20, runs: *runs, wrapRuns: *wrapRuns, hookEvents: *hookEvents, dir: *keep,
		acpRounds: *acpRounds, acpPrompts: *acpPrompts, acpPaced: *acpPaced, answerAfter: *answerAfter, binary: *binary}
	switch *only {
	case "", "replay", "wrap", "hook", "acp":
		c.only = *only
	default:
		fmt.Fprintln(os.Stderr, "bench: -only replay, -only wrap, -only hook or -only acp")
		os.Exit(2)
	}
	if err := bench(c); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// config is what to measure, and how many times.
type config struct {
	size, smallSize            int64
	runs, wrapRuns, hookEvents int
	acpRounds, acpPrompts      int
	acpPaced                   int
	only                       string
	dir                        string
	answerAfter                time.Duration // the receiver's answer in the wrapped runs
	binary                     string        // a cursor-otel built before, measured in place of the repository's
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

func bench(c config) error {
	dir := c.dir
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
	spoolDir = filepath.Join(dir, "spool")
	binary, agent, floor := filepath.Join(dir, "cursor-otel"), filepath.Join(dir, "fakeagent"), filepath.Join(dir, "floor")
	launcher = filepath.Join(dir, "launch")
	builds := map[string]string{".": binary, "./test/fakeagent": agent, "./bench/launch": launcher, "./bench/floor": floor}
	if c.binary != "" {
		// Another version's build, measured with this bench's
		// commands: the same targets, before and after a change.
		delete(builds, ".")
		abs, err := filepath.Abs(c.binary)
		if err != nil {
			return err
		}
		binary = abs
	}
	for pkg, out := range builds {
		if err := build(out, pkg); err != nil {
			return err
		}
	}
	recv, err := otlprecv.ListenGRPC("127.0.0.1:0", nil)
	if err != nil {
		return err
	}
	defer recv.Stop()
	recv.CountOnly()
	var t targets
	fmt.Printf("on %d cores; load average before: %s\n", runtime.NumCPU(), loadAverage())

	if c.only == "" || c.only == "replay" {
		r := replayer{binary: binary, floor: floor, recv: recv}
		fmt.Printf("\nreplay, exporting over OTLP/gRPC to a receiver in this process; median of %d runs\n", c.runs)
		for _, sh := range shapes() {
			if err := r.shape(&t, dir, sh, []int64{c.smallSize, c.size}, c.runs); err != nil {
				return err
			}
		}
		if err := r.largeLines(&t, dir, c.size, c.runs); err != nil {
			return err
		}
	}
	if c.only == "" || c.only == "wrap" {
		w := wrapper{binary: binary, agent: agent, floor: floor, recv: recv, runs: c.wrapRuns, answerAfter: c.answerAfter}
		if w.peer, err = buildPeer(dir); err != nil {
			fmt.Printf("\nskip: otel-cli %s, the wrapper's peer, could not be built (%v)\n", peerVersion, err)
		}
		if err := w.measure(&t, dir, c.hookEvents); err != nil {
			return err
		}
	}
	if c.only == "hook" {
		w := wrapper{binary: binary, recv: recv}
		if err := w.measureHooks(&t, dir, c.hookEvents); err != nil {
			return err
		}
	}
	if c.only == "" || c.only == "acp" {
		if a, err := newACPBench(dir, binary, recv, c.acpRounds, c.acpPrompts, c.acpPaced); err != nil {
			fmt.Printf("\nskip: acp, the SDK's client and agent cannot run (%v)\n", err)
		} else if err := a.measure(&t); err != nil {
			return err
		}
	}
	fmt.Printf("\nload average after: %s\n", loadAverage())
	if t.missed > 0 {
		return fmt.Errorf("%d targets missed", t.missed)
	}
	return nil
}

// measure measures the wrapper and hooks, and checks their targets.
func (w wrapper) measure(t *targets, dir string, hookEvents int) error {
	if err := w.writeAgents(dir); err != nil {
		return err
	}
	// The small run against a receiver that answers at once, then
	// against one that answers as a real collector does: cursor-otel
	// waits for two answers (spans, metrics), otel-cli for one. The
	// target is judged on the second.
	for _, answer := range slices.Compact([]time.Duration{0, w.answerAfter}) {
		if err := w.smallRun(t, answer, answer == w.answerAfter); err != nil {
			return err
		}
	}

	w.recv.AnswerAfter(w.answerAfter)
	l, err := w.realLength(dir)
	w.recv.AnswerAfter(0)
	if err != nil {
		return err
	}
	fmt.Printf("\nwrap: a real-length run, an agent that thinks %v before it prints the small run, %d rounds, the receiver answering %s, medians:\n", thinkTime, w.runs, answering(w.answerAfter))
	fmt.Printf("  agent alone %.2f ms, through cursor-otel %.2f ms; its first byte after %.2f ms alone, %.2f ms later through cursor-otel\n",
		ms(mid(l.alone)), ms(mid(l.wrapped)), ms(mid(l.firstAlone)), ms(mid(minus(l.firstWrapped, l.firstAlone))))
	longAdded := mid(minus(l.wrapped, l.alone))
	floorLong := mid(minus(l.floorWrapped, l.alone))
	fmt.Printf("  cursor-otel version takes %.2f ms: cursor-otel adds %.2f× its own start, floor wrap %.2f×\n",
		ms(mid(l.version)), float64(longAdded)/float64(mid(l.version)), float64(floorLong)/float64(mid(l.version)))
	t.check(float64(longAdded) <= maxLongToFloor*float64(floorLong), "wrapper, real-length run: cursor-otel adds %.2f ms to the agent alone, %.2f× what floor wrap adds (%.2f ms: the least a wrapper made of the SDK and exporter adds) (target %.1f×)",
		ms(longAdded), float64(longAdded)/float64(floorLong), ms(floorLong), maxLongToFloor)

	// The target is on what cursor-otel adds: the agent's own pipe, read
	// straight, has a p99 that moves widely from one run to the next
	// (docs/performance.md, "measured choices"). So both are run 3 times,
	// in turn, and the median of the p99s compared.
	var wrapped, alone passthrough
	for range 3 {
		d, a, err := w.delays(dir, 200)
		if err != nil {
			return err
		}
		wrapped.add(d)
		alone.add(a)
	}
	fmt.Printf("\n  a line from the agent, read straight: median %.3f ms, p99 %.3f ms, worst %.3f ms (medians of 3 runs of 200 lines)\n",
		ms(alone.median()), ms(alone.p99()), ms(alone.worst))
	t.check(wrapped.p99()-alone.p99() < time.Millisecond, "passthrough delay per line: median %.3f ms, p99 %.3f ms (%.3f ms more than read straight), worst %.3f ms (target: 1 ms more at p99)",
		ms(wrapped.median()), ms(wrapped.p99()), ms(wrapped.p99()-alone.p99()), ms(wrapped.worst))
	exits, err := w.exitDelays()
	if err != nil {
		return err
	}
	for _, c := range []string{"down", "refusing", "hanging"} {
		t.check(exits[c] <= tracer.DefaultFlushTimeout, "collector %s: exit delayed %.0f ms at worst, beside a collector that answers (target %v, the flush timeout)", c, ms(exits[c]), tracer.DefaultFlushTimeout)
	}
	return w.measureHooks(t, dir, hookEvents)
}

// measureHooks measures hook events, one at a time with the collector up
// and down, and many at once, and checks their targets.
func (w wrapper) measureHooks(t *targets, dir string, hookEvents int) error {
	down, err := otlprecv.ListenDown()
	if err != nil {
		return err
	}
	fmt.Printf("\nhooks: %d events, each a cursor-otel hook process, each beside a cursor-otel version; medians:\n", hookEvents)
	for _, c := range []struct{ name, endpoint string }{{"up", w.recv.Endpoint}, {"down", down}} {
		h, err := w.hooks(dir, c.endpoint, hookEvents)
		if err != nil {
			return err
		}
		ratio := midRatio(ratios(h.hook, h.version))
		t.check(ratio <= maxHookToStart, "hook, collector %s: an event takes %.2f ms, %.2f× cursor-otel version's %.2f ms (target %.1f×)",
			c.name, ms(mid(h.hook)), ratio, ms(mid(h.version)), maxHookToStart)
	}
	par, err := w.hooksParallel(dir, w.recv.Endpoint, 10)
	if err != nil {
		return err
	}
	t.check(p99(par.hook) <= 2*p99(par.version), "hooks, %d at once: an event's exit at p99 %.2f ms, %d cursor-otel version at once %.2f ms (target 2×)",
		hooksAtOnce, ms(p99(par.hook)), hooksAtOnce, ms(p99(par.version)))
	return nil
}

// maxLongToFloor is the most a wrapped run of an agent that thinks before
// its first byte may add, against what floor wrap adds to it: the set-up
// is made while the agent thinks, and what is left is what the SDK and
// exporter alone cost, and a little for the span model and reports.
// (Against cursor-otel's own start the floor alone adds 1.3-1.4×.)
const maxLongToFloor = 1.1

// maxHookToStart is the most a hook event may take against cursor-otel's
// own start: Cursor waits for each hook, so a hook does what it must and
// leaves the rest to a delivery in the background.
const maxHookToStart = 1.3

// loadAverage is the machine's load average, as /proc says it, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// build builds pkg into out as a release is built (.goreleaser.yaml):
// without cgo, so that the binary is static. A cgo build starts later,
// loading the C library first, and would make a small wrapped run look
// slower than a release's (docs/performance.md, "measured choices").
func build(out, pkg string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-tags=grpcnotrace", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s (run from the repository root): %v\n%s", pkg, err, b)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
