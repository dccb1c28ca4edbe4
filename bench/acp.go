package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// acpSDK holds the ACP agent and client on the official TypeScript SDK
// (test/acpsdk; npm ci --prefix test/acpsdk installs the SDK).
const acpSDK = "test/acpsdk"

// clockTick is the unit of /proc's CPU times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// acpBench measures ACP forwarding: the SDK's client sending prompts to
// the SDK's agent, each answered with one message and then its answer,
// directly, through a plain relay and through cursor-otel acp exporting
// each turn to the receiver, in alternating rounds.
type acpBench struct {
	binary, relay, agent, client, node string
	recv                               *otlptest.Receiver
	rounds, prompts                    int
}

// acpRun is what one session of prompts measured.
type acpRun struct {
	RT    []int64 `json:"rt"`    // each prompt's round trip, ns
	E2A   []int64 `json:"e2a"`   // each prompt, editor to agent, ns
	A2E   []int64 `json:"a2e"`   // each message back, agent to editor, ns
	Ticks int64   `json:"ticks"` // the process the client started: CPU, clock ticks
	HWM   int64   `json:"hwm"`   // its peak RSS, KiB
}

// newACPBench finds node and the SDK, or says why the ACP section is skipped.
func newACPBench(dir, binary string, recv *otlptest.Receiver, rounds, prompts int) (*acpBench, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("no node")
	}
	sdk, err := filepath.Abs(acpSDK)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(sdk, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		return nil, fmt.Errorf("the SDK is not installed (npm ci --prefix %s)", acpSDK)
	}
	b := &acpBench{binary: binary, relay: filepath.Join(dir, "relay"), agent: filepath.Join(dir, "sdk-agent"),
		client: filepath.Join(sdk, "ping.mjs"), node: node, recv: recv, rounds: rounds, prompts: prompts}
	if err := build(b.relay, "./bench/relay"); err != nil {
		return nil, err
	}
	script := "#!/bin/sh\nexec " + node + " " + filepath.Join(sdk, "agent.mjs") + "\n"
	if err := os.WriteFile(b.agent, []byte(script), 0o755); err != nil {
		return nil, err
	}
	return b, nil
}

// session runs one session of b.prompts prompts from the client to cmd.
func (b *acpBench) session(env []string, cmd ...string) (acpRun, error) {
	c := exec.Command(b.node, append([]string{b.client, fmt.Sprint(b.prompts)}, cmd...)...)
	c.Env = append(baseEnv(), env...)
	var stderr limited
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return acpRun{}, fmt.Errorf("%s: %v: %s", strings.Join(cmd, " "), err, string(stderr.b))
	}
	var r acpRun
	if err := json.Unmarshal(out, &r); err != nil {
		return acpRun{}, fmt.Errorf("%s: %v: %s", strings.Join(cmd, " "), err, out)
	}
	if len(r.RT) != b.prompts || len(r.A2E) != b.prompts {
		return acpRun{}, fmt.Errorf("%s: %d round trips and %d messages of %d prompts", strings.Join(cmd, " "), len(r.RT), len(r.A2E), b.prompts)
	}
	return r, nil
}

// acpWays are the three ways the client reaches the agent.
var acpWays = []string{"direct", "relay", "cursor-otel"}

// measure runs the rounds and checks the target.
func (b *acpBench) measure(t *targets) error {
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + b.recv.Endpoint, "CURSOR_OTEL_AGENT=" + b.agent}
	cmds := [][]string{{b.agent, "acp"}, {b.relay, b.agent, "acp"}, {b.binary, "acp"}}
	got := make([][]acpRun, len(cmds))
	// A session of each, not counted: node's caches warm, and the spool
	// learns that the collector answers promptly, as it has on a machine
	// where cursor-otel ran before (a first session hands its turns over
	// to the background delivery).
	for _, cmd := range cmds {
		if _, err := b.session(env, cmd...); err != nil {
			return err
		}
	}
	for range b.rounds {
		for i, cmd := range cmds {
			r, err := b.session(env, cmd...)
			if err != nil {
				return err
			}
			got[i] = append(got[i], r)
		}
	}
	fmt.Printf("\nacp: the SDK's client and agent (test/acpsdk), %d prompts a session each answered with one message, each turn exported; %d rounds, alternating (direct, relay, cursor-otel)\n",
		b.prompts, b.rounds)
	pool := func(i int, f func(acpRun) []int64) []time.Duration {
		var ds []time.Duration
		for _, r := range got[i] {
			for _, v := range f(r) {
				ds = append(ds, time.Duration(v))
			}
		}
		return ds
	}
	rt := func(r acpRun) []int64 { return r.RT }
	a2e := func(r acpRun) []int64 { return r.A2E }
	e2a := func(r acpRun) []int64 { return r.E2A }
	// Each round's p99 of the round trip, to show the spread.
	roundP99 := func(i int) []time.Duration {
		var out []time.Duration
		for _, r := range got[i] {
			out = append(out, pct(nanos(r.RT), 99))
		}
		return out
	}
	for i, way := range acpWays {
		cpu, rss := []time.Duration{}, []float64{}
		for _, r := range got[i] {
			cpu = append(cpu, time.Duration(r.Ticks)*clockTick*600/time.Duration(b.prompts))
			rss = append(rss, float64(r.HWM)/1024)
		}
		slices.Sort(rss)
		fmt.Printf("  %-11s round trip p50 %.3f ms p99 %.3f ms (each round's p99 %s); editor→agent p99 %.3f ms, agent→editor p50 %.3f ms p99 %.3f ms; CPU per 600 prompts %.2f s, peak RSS %.1f MiB\n",
			way, ms(pct(pool(i, rt), 50)), ms(pct(pool(i, rt), 99)), msList(roundP99(i)),
			ms(pct(pool(i, e2a), 99)), ms(pct(pool(i, a2e), 50)), ms(pct(pool(i, a2e), 99)),
			mid(cpu).Seconds(), rss[len(rss)/2])
	}
	added := func(i int, f func(acpRun) []int64, p int) time.Duration {
		return pct(pool(i, f), p) - pct(pool(0, f), p)
	}
	fmt.Printf("  added to direct: relay p50 %+.3f ms p99 %+.3f ms; cursor-otel p50 %+.3f ms p99 %+.3f ms\n",
		ms(added(1, rt, 50)), ms(added(1, rt, 99)), ms(added(2, rt, 50)), ms(added(2, rt, 99)))
	over := pct(pool(2, rt), 99) - pct(pool(1, rt), 99)
	t.check(over <= time.Millisecond, "acp forwarding: a round trip through cursor-otel at p99 %.3f ms, through a plain relay %.3f ms, %+.3f ms (target: within 1 ms of the relay)",
		ms(pct(pool(2, rt), 99)), ms(pct(pool(1, rt), 99)), ms(over))
	return nil
}

func nanos(v []int64) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, n := range v {
		out[i] = time.Duration(n)
	}
	return out
}

// pct is the p-th percentile of ds (a copy is sorted).
func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func msList(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%.2f", ms(d))
	}
	return strings.Join(parts, " ")
}
