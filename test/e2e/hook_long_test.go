//go:build linux && combinations

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

// 600 hook processes: with the combination suite (-tags combinations,
// .ci/run), not in go test ./....

// A conversation of 200 turns is 200 small traces, each whole and
// linked to the one before; a hook event costs as much at the 200th
// turn as at the first, in time and in memory, and the conversation's
// state stays bounded.
func TestHooksLongConversation(t *testing.T) {
	const turns = 200
	recv := otlptest.StartGRPC(t)
	recv.CountOnly()
	state := t.TempDir()
	env := withBaseEnv(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + state, "OTEL_METRICS_EXPORTER=none"})
	common := `"conversation_id":"conv-long","model":"claude-4.6-sonnet","workspace_roots":["/w"]`
	type cost struct {
		took  time.Duration
		rss   int64 // peak resident memory, KiB
		state int64 // the conversation's state, bytes
	}
	var costs []cost
	hook := func(line string) {
		cmd := exec.Command(binary, "hook")
		cmd.Env, cmd.Stdin = env, strings.NewReader(line+"\n")
		r := runStarted(t, cmd, func() { proctest.Start(t, cmd, 30*time.Second) })
		if r.exit != 0 || r.stderr != "" {
			t.Fatalf("hook: exit %d, stderr %q", r.exit, r.stderr)
		}
		c := cost{took: r.took}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			c.rss = ru.Maxrss
		}
		if files, _ := filepath.Glob(filepath.Join(state, "conversations", "*.json")); len(files) == 1 {
			if fi, err := os.Stat(files[0]); err == nil {
				c.state = fi.Size()
			}
		}
		costs = append(costs, c)
	}
	hook(`{"hook_event_name":"sessionStart",` + common + `,"generation_id":""}`)
	for i := 1; i <= turns; i++ {
		g := fmt.Sprintf(`,"generation_id":"g%d"`, i)
		hook(`{"hook_event_name":"beforeSubmitPrompt",` + common + g + `,"prompt":"turn"}`)
		hook(`{"hook_event_name":"postToolUse",` + common + g + `,"tool_name":"Read","tool_input":{"file_path":"a.go"},"tool_use_id":"t` + fmt.Sprint(i) + `","duration":12}`)
		hook(`{"hook_event_name":"stop",` + common + g + `,"status":"completed","input_tokens":1000,"output_tokens":50}`)
	}
	for deadline := time.Now().Add(30 * time.Second); recv.SpanCount() < 3*turns && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond) // polling the receiver: delivery runs on its own
	}
	if n, names := recv.SpanCount(), recv.Names(); n != 3*turns || names["invoke_agent cursor-agent"] != turns {
		t.Errorf("%d spans %v; want %d: a root, a chat and a tool a turn", n, names, 3*turns)
	}
	// Turns 41-60 (what the conversation remembers is at its bound by
	// then) against the last 20: medians.
	median := func(cs []cost, of func(cost) int64) int64 {
		v := make([]int64, len(cs))
		for i, c := range cs {
			v[i] = of(c)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	first, last := costs[121:181], costs[len(costs)-60:]
	took := func(c cost) int64 { return int64(c.took) }
	rss := func(c cost) int64 { return c.rss }
	size := func(c cost) int64 { return c.state }
	all := slices.Clone(costs)
	slices.SortFunc(all, func(a, b cost) int { return int(a.took - b.took) })
	t.Logf("%d hook events: p50 %v, p99 %v; turns 41-60 p50 %v, peak memory %d KiB, state %d B; turns 181-200 p50 %v, %d KiB, %d B",
		len(costs), all[len(all)/2].took, all[len(all)*99/100].took, time.Duration(median(first, took)), median(first, rss), median(first, size),
		time.Duration(median(last, took)), median(last, rss), median(last, size))
	// A hook reads no state; the conversation's, which the delivery
	// builds turns from, stays bounded however many turns it had.
	if files, _ := filepath.Glob(filepath.Join(state, "conversations", "*.json")); len(files) == 1 {
		if fi, err := os.Stat(files[0]); err != nil {
			t.Error(err)
		} else if fi.Size() > 2048 {
			t.Errorf("the conversation's state after %d turns is %d bytes; want at most 2 KiB", turns, fi.Size())
		}
	} else {
		t.Errorf("conversation states %v; want one", files)
	}
	if m0, m1 := median(first, rss), median(last, rss); m0 > 0 && m1 > m0*5/4 {
		t.Errorf("a hook's peak memory grew from %d to %d KiB over %d turns; want it flat", m0, m1, turns)
	}
	if t0, t1 := median(first, took), median(last, took); timingChecked(t) && t1 > 2*t0+int64(5*time.Millisecond) {
		t.Errorf("a hook event took %v at the first turns, %v at the last; want it flat", time.Duration(t0), time.Duration(t1))
	}
	if left := journalLeft(t, state, 10*time.Second); len(left) != 0 {
		t.Errorf("%d events of closed turns still in the journal", len(left))
	}
}
