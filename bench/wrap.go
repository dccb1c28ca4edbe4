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
	"github.com/cursor-otel/cursor-otel/internal/otlprecv"
)

// wrapper measures cursor-otel in front of the stand-in agent.
type wrapper struct {
	binary, agent   string
	script, minimal string // the shell-script agent; a Go program that does nothing
	scratch         string // a directory for the runs' files
	floor           string // bench/floor: the SDK and exporter alone
	peer            string // otel-cli; "" when it could not be built
	recv            *otlprecv.Receiver
	runs            int
	answerAfter     time.Duration // the receiver's answer, as a real collector's, in the runs judged
}

var streamArgs = []string{"-p", "--output-format", "stream-json", "fix the failing test"}

// small is a small traced run: examples/fix-failing-test.ndjson (39
// lines, 11 spans) with no pauses.
var small = []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "FAKEAGENT_SPEED=1000000000"}

// startup is what a small traced run costs: each command's runs, in
// round order (see rounds).
type startup struct {
	alone, wrapped []time.Duration // the shell-script agent alone, and through cursor-otel
	peer           []time.Duration // through otel-cli exec; nil without otel-cli
	minimal        []time.Duration // a Go program that does nothing
	floor          []time.Duration // one that links the SDK and OTLP/gRPC exporter
	floorWrapped   []time.Duration // the shell-script agent through that program, exporting 11 spans
	version        []time.Duration // cursor-otel version
}

// cost measures a small traced run against a shell-script agent: alone,
// through cursor-otel, and through otel-cli exec (when w.peer is set),
// each exporting to the local receiver; and the starts of a minimal Go
// program, of the floor and of cursor-otel version. The runs go in rounds,
// so that the machine's drift falls on each alike.
func (w wrapper) cost() (startup, error) {
	endpoint := "OTEL_EXPORTER_OTLP_ENDPOINT=" + w.recv.Endpoint
	steps := []step{
		{label: "agent alone", cmd: command{name: "sh", args: append([]string{w.script}, streamArgs...), env: w.shellAgent()}},
		{label: "wrapped run", cmd: command{name: w.binary, args: streamArgs, env: append(w.shellAgent(), "CURSOR_OTEL_AGENT="+w.script, endpoint)}},
		{label: "minimal Go program", cmd: command{name: w.minimal}},
		{label: "floor", cmd: command{name: w.floor}},
		{label: "floor wrap", cmd: command{name: w.floor, args: append([]string{"wrap", "sh", w.script}, streamArgs...), env: append(w.shellAgent(), endpoint)}},
		{label: "cursor-otel version", cmd: command{name: w.binary, args: []string{"version"}}},
	}
	if w.peer != "" {
		steps = append(steps, step{label: "otel-cli exec", cmd: peerCommand(w.peer, hostPort(w.recv.Endpoint), w.shellAgent(), append([]string{"sh", w.script}, streamArgs...)...)})
	}
	before := w.recv.Names()[peerSpan]
	got, err := rounds(w.runs, steps...)
	if err != nil {
		return startup{}, err
	}
	for _, r := range got[1] {
		if r.stderr != "" {
			return startup{}, fmt.Errorf("wrapped run: %s", r.stderr)
		}
	}
	c := startup{walls(got[0]), walls(got[1]), nil, walls(got[2]), walls(got[3]), walls(got[4]), walls(got[5])}
	if w.peer != "" {
		c.peer = walls(got[6])
		if n := w.recv.Names()[peerSpan] - before; n != w.runs {
			return startup{}, fmt.Errorf("otel-cli exec: %d of %d spans arrived", n, w.runs)
		}
	}
	return c, nil
}

// shellAgent is the environment of the shell-script agent: the small run.
func (w wrapper) shellAgent() []string {
	return []string{"AGENT_STREAM=examples/fix-failing-test.ndjson"}
}

// writeAgents writes, into dir, the shell-script agent (it prints its
// recording) and builds the minimal Go program.
func (w *wrapper) writeAgents(dir string) error {
	w.script, w.minimal, w.scratch = filepath.Join(dir, "agent.sh"), filepath.Join(dir, "minimal"), dir
	if err := os.WriteFile(w.script, []byte("#!/bin/sh\ncat \"$AGENT_STREAM\"\n"), 0o755); err != nil {
		return err
	}
	src := filepath.Join(dir, "minimal.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		return err
	}
	return build(w.minimal, src)
}

// delays are how long each of lines lines, written 5 ms apart, took from
// the agent's write to cursor-otel's stdout, sorted; alone, the same read
// straight from the agent: this machine's own pipe and wake-up, which a
// wrapper can only add to.
func (w wrapper) delays(dir string, lines int) (wrapped, alone []time.Duration, err error) {
	path, times := filepath.Join(dir, "delay.ndjson"), filepath.Join(dir, "times")
	if err := os.WriteFile(path, lag.Stream(lines), 0o644); err != nil {
		return nil, nil, err
	}
	agentEnv := []string{"PATH=" + os.Getenv("PATH"), "CURSOR_OTEL_SPOOL=" + spoolDir, "FAKEAGENT_STREAM=" + path, "FAKEAGENT_LINE_DELAY=5ms", "FAKEAGENT_TIMES=" + times}
	run := func(name string, env ...string) ([]time.Duration, error) {
		os.Remove(times)
		cmd := exec.Command(name, streamArgs...)
		cmd.Env = append(env, agentEnv...)
		return lag.Lines(cmd, times)
	}
	if alone, err = run(w.agent); err != nil {
		return nil, nil, err
	}
	wrapped, err = run(w.binary, "OTEL_EXPORTER_OTLP_ENDPOINT="+w.recv.Endpoint, "CURSOR_OTEL_AGENT="+w.agent)
	return wrapped, alone, err
}

// exitDelays is how much later a small run ends through cursor-otel than
// alone when the named collector is down, refusing or hanging: the worst
// of several runs.
func (w wrapper) exitDelays() (map[string]time.Duration, error) {
	down, err := otlprecv.ListenDown()
	if err != nil {
		return nil, err
	}
	hanging, stopHanging, err := otlprecv.ListenHanging()
	if err != nil {
		return nil, err
	}
	defer stopHanging()
	refusing, err := otlprecv.ListenGRPC("127.0.0.1:0", nil)
	if err != nil {
		return nil, err
	}
	defer refusing.Stop()
	refusing.Refuse(status.Error(codes.Unavailable, "overloaded"))

	// A spool of their own: what the runs against a collector that is down
	// keep, the next run delivers in the background, into no other figure.
	spool := "CURSOR_OTEL_SPOOL=" + filepath.Join(w.scratch, "exit-spool")
	defer waitForDeliveries(w.binary, time.Minute+10*time.Second)
	out := map[string]time.Duration{}
	for _, c := range []struct{ name, endpoint string }{
		{"down", down}, {"refusing", refusing.Endpoint}, {"hanging", hanging},
	} {
		// The delay is the collector's: against the same run with a
		// collector that answers (the wrapper's own cost is measured above).
		var extra []time.Duration
		for range max(3, w.runs/10) {
			healthy, err := measure(nil, append([]string{"CURSOR_OTEL_AGENT=" + w.agent, "OTEL_EXPORTER_OTLP_ENDPOINT=" + w.recv.Endpoint, spool}, small...), w.binary, streamArgs...)
			if err != nil {
				return nil, err
			}
			r, err := measure(nil, append([]string{"CURSOR_OTEL_AGENT=" + w.agent, "OTEL_EXPORTER_OTLP_ENDPOINT=" + c.endpoint, spool}, small...), w.binary, streamArgs...)
			if err != nil {
				return nil, err
			}
			if r.exit != 0 {
				return nil, fmt.Errorf("collector %s: exit %d: %s", c.name, r.exit, r.stderr)
			}
			extra = append(extra, r.wall-healthy.wall)
		}
		out[c.name] = slices.Max(extra)
	}
	return out, nil
}

// passthrough is the delays of several runs: each run's median and p99,
// and the worst of all.
type passthrough struct {
	medians, p99s []time.Duration
	worst         time.Duration
}

// add is one run's delays, sorted.
func (p *passthrough) add(sorted []time.Duration) {
	p.medians = append(p.medians, sorted[len(sorted)/2])
	p.p99s = append(p.p99s, sorted[len(sorted)*99/100])
	p.worst = max(p.worst, sorted[len(sorted)-1])
}

func (p *passthrough) median() time.Duration { return medianDuration(p.medians) }
func (p *passthrough) p99() time.Duration    { return medianDuration(p.p99s) }

// smallRun measures the small run with the receiver answering each export
// after answer, and, when judged, checks its target: no more added than
// the peer adds (without the peer: than floor wrap adds).
func (w wrapper) smallRun(t *targets, answer time.Duration, judged bool) error {
	w.recv.AnswerAfter(answer)
	defer w.recv.AnswerAfter(0)
	c, err := w.cost()
	if err != nil {
		return err
	}
	added := mid(minus(c.wrapped, c.alone))
	fmt.Printf("\nwrap: a small traced run (39 lines, 11 spans) against a shell-script agent, the receiver answering %s, %d rounds, medians:\n", answering(answer), w.runs)
	fmt.Printf("  agent alone %.2f ms, through cursor-otel %.2f ms; a minimal Go program starts in %.2f ms, cursor-otel version in %.2f ms\n",
		ms(mid(c.alone)), ms(mid(c.wrapped)), ms(mid(c.minimal)), ms(mid(c.version)))
	fmt.Printf("  a Go program that only links the SDK and OTLP/gRPC exporter starts in %.2f ms, %.2f ms more than one that links nothing\n",
		ms(mid(c.floor)), ms(mid(minus(c.floor, c.minimal))))
	fmt.Printf("  the same program running the agent and exporting 11 spans adds %.2f ms to the agent alone: no wrapper made of them adds much less\n",
		ms(mid(minus(c.floorWrapped, c.alone))))
	say := func(ok bool, format string, args ...any) {
		if judged {
			t.check(ok, format, args...)
		} else {
			fmt.Printf("     %s (not judged: a real collector does not answer at once)\n", fmt.Sprintf(format, args...))
		}
	}
	if c.peer != nil {
		peerAdded := mid(minus(c.peer, c.alone))
		say(added <= peerAdded, "wrapper, small run, receiver answering %s: cursor-otel adds %.2f ms to the agent alone, otel-cli exec (the peer) %.2f ms, %.2f× (target: no more than the peer)",
			answering(answer), ms(added), ms(peerAdded), float64(added)/float64(peerAdded))
		return nil
	}
	// No peer: the least wrapper the libraries make stands in for it
	// (it adds less than the peer did where both were measured).
	floorAdded := mid(minus(c.floorWrapped, c.alone))
	say(added <= floorAdded, "wrapper, small run, receiver answering %s: cursor-otel adds %.2f ms to the agent alone, floor wrap %.2f ms (no peer could be built: target no more than the floor)",
		answering(answer), ms(added), ms(floorAdded))
	return nil
}

// answering says how the receiver answers: "at once", "after 1ms".
func answering(d time.Duration) string {
	if d == 0 {
		return "at once"
	}
	return "after " + d.String()
}
