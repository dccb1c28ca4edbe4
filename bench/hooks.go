package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cursor-otel/cursor-otel/parse"
)

// hookSession is a recorded interactive session's hook events, one a line.
const hookSession = "spanmap/testdata/hooks/interactive-session.ndjson"

// hookRun is the figures of hook events and of cursor-otel version run
// beside them, in turn.
type hookRun struct {
	hook, version []time.Duration
}

// hooks runs n hook events, each a cursor-otel hook process of its own as
// Cursor runs them, exporting to endpoint, each beside a cursor-otel
// version. Each event must answer as a hook does: status 0, nothing on
// stderr.
func (w wrapper) hooks(dir, endpoint string, n int) (hookRun, error) {
	events, err := hookEvents(n)
	if err != nil {
		return hookRun{}, err
	}
	state, err := os.MkdirTemp(dir, "hooks")
	if err != nil {
		return hookRun{}, err
	}
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint, "CURSOR_OTEL_STATE_DIR=" + filepath.Join(state, "state"),
		"CURSOR_OTEL_SPOOL=" + filepath.Join(state, "spool")}
	var h hookRun
	for _, ev := range events {
		var out bytes.Buffer
		r, err := command{name: w.binary, args: []string{"hook"}, env: env, stdin: strings.NewReader(ev + "\n"), stdout: &out}.measure()
		if err == nil && (r.exit != 0 || r.stderr != "" || !strings.HasPrefix(out.String(), "{")) {
			err = fmt.Errorf("hook: exit %d, stdout %q, stderr %q", r.exit, out.String(), r.stderr)
		}
		if err != nil {
			return hookRun{}, err
		}
		v, err := command{name: w.binary, args: []string{"version"}}.measure()
		if err != nil {
			return hookRun{}, err
		}
		h.hook, h.version = append(h.hook, r.wall), append(h.version, v.wall)
	}
	waitForFlushers(w.binary, time.Minute+10*time.Second)
	return h, nil
}

// hookEvents is n hook events: the recorded session's, over again, each
// pass a conversation of its own.
func hookEvents(n int) ([]string, error) {
	b, err := os.ReadFile(hookSession)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var out []string
	for pass := 0; len(out) < n; pass++ {
		for _, l := range lines {
			if len(out) < n {
				out = append(out, strings.ReplaceAll(l, `"conv-7c1e"`, fmt.Sprintf(`"conv-7c1e-%d"`, pass)))
			}
		}
	}
	return out, nil
}

// waitForFlushers waits, at most within, for the deliveries the hooks
// started in the background (cursor-otel's own delivery, detached)
// to end, so that none runs on after the bench or into its next figures.
// Only where /proc lists processes; elsewhere it returns at once.
func waitForFlushers(binary string, within time.Duration) {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) && flushersRunning(binary) {
		time.Sleep(50 * time.Millisecond) // polling /proc: the flushers are not our children
	}
}

// flushersRunning says whether a process runs binary's background
// delivery: started with the argument cursor-otel gives it, from binary
// (on Linux through /proc/self/exe, so the file is what tells).
func flushersRunning(binary string) bool {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	bin, err := os.Stat(binary)
	if err != nil {
		return false
	}
	for _, p := range procs {
		b, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(b), "\x00--cursor-otel-background-delivery\x00") {
			continue
		}
		if exe, err := os.Stat(filepath.Join("/proc", p.Name(), "exe")); err == nil && os.SameFile(exe, bin) {
			return true
		}
	}
	return false
}

// hooksAtOnce is how many hook processes Cursor runs at once in
// hooksParallel: a turn's twelve parallel tool calls, their before- and
// after-hooks.
const hooksAtOnce = 24

// hooksParallel runs rounds of hooksAtOnce hook processes started at
// once (one turn's parallel tool calls, then its stop), each round
// beside as many cursor-otel version processes started at once, and
// returns every process's wall time: what Cursor waits for.
func (w wrapper) hooksParallel(dir, endpoint string, rounds int) (hookRun, error) {
	state, err := os.MkdirTemp(dir, "hooks-parallel")
	if err != nil {
		return hookRun{}, err
	}
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint, "CURSOR_OTEL_STATE_DIR=" + filepath.Join(state, "state"),
		"CURSOR_OTEL_SPOOL=" + filepath.Join(state, "spool")}
	var h hookRun
	var mu sync.Mutex
	for round := range rounds {
		c := fmt.Sprintf(`"conversation_id":"conv-par","generation_id":"gen-%d"`, round)
		var events []string
		for i := range hooksAtOnce / 2 {
			tool := fmt.Sprintf(`"tool_name":"Shell","tool_input":{"command":"go test ./pkg%d"},"tool_use_id":"t%d-%d"`, i, round, i)
			events = append(events, `{"hook_event_name":"`+parse.HookPreToolUse+`",`+c+`,`+tool+`}`,
				`{"hook_event_name":"`+parse.HookPostToolUse+`",`+c+`,`+tool+`,"duration":120,"tool_output":"{\"exitCode\":0}"}`)
		}
		for _, cmds := range [][]command{hookCommands(w.binary, env, events), versionCommands(w.binary)} {
			var wg sync.WaitGroup
			var failed error
			for _, cmd := range cmds {
				wg.Go(func() {
					r, err := cmd.measure()
					mu.Lock()
					defer mu.Unlock()
					if err == nil && r.exit != 0 {
						err = fmt.Errorf("%s: exit %d, stderr %q", cmd.args, r.exit, r.stderr)
					}
					if err != nil {
						failed = err
						return
					}
					if cmd.args[0] == "hook" {
						h.hook = append(h.hook, r.wall)
					} else {
						h.version = append(h.version, r.wall)
					}
				})
			}
			wg.Wait()
			if failed != nil {
				return hookRun{}, failed
			}
		}
		stop := `{"hook_event_name":"` + parse.HookStop + `",` + c + `,"status":"completed"}`
		if _, err := (command{name: w.binary, args: []string{"hook"}, env: env, stdin: strings.NewReader(stop + "\n")}).measure(); err != nil {
			return hookRun{}, err
		}
	}
	waitForFlushers(w.binary, time.Minute+10*time.Second)
	return h, nil
}

func hookCommands(binary string, env, events []string) []command {
	var out []command
	for _, ev := range events {
		out = append(out, command{name: binary, args: []string{"hook"}, env: env, stdin: strings.NewReader(ev + "\n"), stdout: io.Discard})
	}
	return out
}

func versionCommands(binary string) []command {
	out := make([]command, hooksAtOnce)
	for i := range out {
		out[i] = command{name: binary, args: []string{"version"}}
	}
	return out
}

// p99 is the 99th percentile of ds (a copy is sorted).
func p99(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)*99/100]
}
