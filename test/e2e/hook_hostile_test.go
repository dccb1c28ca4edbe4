//go:build linux

package e2e

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

// A hook event of a scripted conversation with parallel tools.
func parallelTurn(conv string, turn, tools int) (prompt string, pres, posts []string, stop string) {
	c := fmt.Sprintf(`"conversation_id":%q,"generation_id":"%s-g%d","model":"m"`, conv, conv, turn)
	prompt = `{"hook_event_name":"beforeSubmitPrompt",` + c + `}`
	for i := range tools {
		// The same command in every turn: a tool is told apart by its id.
		tool := fmt.Sprintf(`"tool_name":"Shell","tool_input":{"command":"go test ./pkg%d"},"tool_use_id":"%s-t%d-%d"`, i%3, conv, turn, i)
		pres = append(pres, `{"hook_event_name":"preToolUse",`+c+`,`+tool+`}`)
		posts = append(posts, `{"hook_event_name":"postToolUse",`+c+`,`+tool+`,"duration":12,"tool_output":"{\"exitCode\":0}"}`)
	}
	stop = `{"hook_event_name":"stop",` + c + `,"status":"completed","input_tokens":100,"output_tokens":10}`
	return prompt, pres, posts, stop
}

// hookProcess runs one hook event in a process of its own; kill, when
// positive, kills it (SIGKILL) that long after it started. It says
// whether the process was killed before it ended.
func hookProcess(t *testing.T, env []string, event string, kill time.Duration) (killed bool) {
	t.Helper()
	cmd := exec.Command(binary, "hook")
	cmd.Env = withBaseEnv(t, env)
	cmd.Stdin = strings.NewReader(event + "\n")
	var out bytes.Buffer
	cmd.Stdout = &out
	proctest.Start(t, cmd, time.Minute)
	if kill > 0 {
		timer := time.AfterFunc(kill, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
		defer timer.Stop()
	}
	err := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return true
	}
	if err != nil || out.Len() == 0 {
		t.Errorf("hook for %.50s: %v, answer %q", event, err, out.String())
	}
	return false
}

// checkWhole checks what a person looking at the traces would: no span
// twice, every trace with one root, every parent there and every span
// within it, every root a turn's (a conversation's end is no trace); it
// returns the turns, the tools, and the tools not a success.
func checkWhole(t *testing.T, spans []golden.Span) (traces, tools, notSuccess int) {
	t.Helper()
	noSpanTwice(t, spans)
	byID := map[string]golden.Span{}
	roots := map[string]int{}
	for _, s := range spans {
		byID[s.SpanID] = s
		if s.ParentID == "" {
			roots[s.TraceID]++
			if value(s, "cursor.turn.number") != "" {
				traces++
			} else {
				t.Errorf("a root that is no turn: %s %v", s.Name, s.Attributes)
			}
		}
	}
	outside := 0
	for _, s := range spans {
		if roots[s.TraceID] != 1 {
			t.Errorf("%s's trace %s has %d roots", s.Name, s.TraceID, roots[s.TraceID])
		}
		if s.ParentID != "" {
			p, ok := byID[s.ParentID]
			if !ok {
				t.Errorf("%s's parent %s never came", s.Name, s.ParentID)
				continue
			}
			if s.Start.Before(p.Start) || s.End.After(p.End) {
				outside++
			}
		}
		if strings.HasPrefix(s.Name, "execute_tool") {
			tools++
			if value(s, "cursor.tool.outcome") != "success" {
				notSuccess++
			}
		}
	}
	if outside > 0 {
		t.Errorf("%d spans outside their parent", outside)
	}
	return traces, tools, notSuccess
}

// Cursor runs hooks as it likes: several at once, in any order, moving on
// once it has the answer, killing some. Three conversations of five
// turns of twelve parallel tools each, their processes overlapping: the
// pre-hooks at once, the stop, then the after-hooks fired and not waited
// for; in one case one hook process in four is killed 1-20 ms after it
// started. Every turn arrives whole, once: each tool one span, every
// completed tool a success.
func TestHooksInAnyOrderAndKilled(t *testing.T) {
	const convs, turns, tools = 3, 5, 12
	for _, kill := range []bool{false, true} {
		t.Run(map[bool]string{false: "after-hooks not waited for", true: "one process in four killed"}[kill], func(t *testing.T) {
			recv := otlptest.StartGRPC(t)
			state := t.TempDir()
			env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + state, "OTEL_METRICS_EXPORTER=none",
				"CURSOR_OTEL_SPOOL=" + filepath.Join(state, "spool")}
			t.Cleanup(func() { waitForDeliverer(filepath.Join(state, "spool")) })
			rng := rand.New(rand.NewPCG(3, 4))
			var mu sync.Mutex
			killAfter := func() time.Duration {
				mu.Lock()
				defer mu.Unlock()
				if !kill || rng.IntN(4) != 0 {
					return 0
				}
				return time.Duration(1+rng.IntN(20)) * time.Millisecond
			}
			lostTurns := 0 // turns whose prompt and stop were both killed: no hook told of them
			var wg sync.WaitGroup
			for c := range convs {
				wg.Go(func() {
					conv := fmt.Sprintf("conv-%d", c)
					var after sync.WaitGroup
					for n := range turns {
						prompt, pres, posts, stop := parallelTurn(conv, n, tools)
						promptKilled := hookProcess(t, env, prompt, killAfter())
						var pre sync.WaitGroup
						for _, e := range pres {
							pre.Go(func() { hookProcess(t, env, e, killAfter()) })
						}
						pre.Wait()
						stopKilled := hookProcess(t, env, stop, killAfter())
						for _, e := range posts { // not waited for: the next turn begins
							after.Go(func() { hookProcess(t, env, e, killAfter()) })
						}
						if promptKilled && stopKilled {
							mu.Lock()
							lostTurns++
							mu.Unlock()
						}
					}
					after.Wait()
					hookProcess(t, env, fmt.Sprintf(`{"hook_event_name":"sessionEnd","conversation_id":%q,"reason":"completed"}`, conv), 0)
				})
			}
			wg.Wait()
			// What is left to build, a flush builds and sends now.
			if r := runBinary(t, env, nil, "flush"); r.exit != 0 {
				t.Fatalf("flush: exit %d, %q", r.exit, r.stderr)
			}
			spans := golden.FromOTLP(recv.Spans())
			traces, got, notSuccess := checkWhole(t, spans)
			t.Logf("%d spans, %d traces, %d tools, %d not a success, %d turns lost with both their hooks", len(spans), traces, got, notSuccess, lostTurns)
			if !kill {
				if traces != convs*turns || got != convs*turns*tools || notSuccess != 0 {
					t.Errorf("%d traces, %d tools, %d not a success; want %d, %d, 0", traces, got, notSuccess, convs*turns, convs*turns*tools)
				}
				return
			}
			if traces < convs*turns-lostTurns {
				t.Errorf("%d traces; want every turn a hook told of: at least %d", traces, convs*turns-lostTurns)
			}
			if left := journalLeft(t, state, 10*time.Second); len(left) != 0 {
				t.Errorf("%d events left in the journal after a flush", len(left))
			}
		})
	}
}

// A background delivery killed while the collector holds its export (a
// slow collector that then fails) loses nothing: the turn stays kept,
// and arrives once with the next delivery.
func TestHooksDeliveryKilledMidExport(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	state := t.TempDir()
	mark := "hook-killed-" + strconv.Itoa(os.Getpid())
	spoolDir := filepath.Join(state, "spool")
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + state, "OTEL_METRICS_EXPORTER=none",
		"CURSOR_OTEL_SPOOL=" + spoolDir, cellMarker + "=" + mark}
	t.Cleanup(func() { killCell(mark) })
	recv.SlowDown(20 * time.Second)
	recv.Refuse(status.Error(codes.Unavailable, "the collector went away"))
	prompt, pres, posts, stop := parallelTurn("conv-k", 1, 2)
	for _, e := range append(append(append([]string{prompt}, pres...), posts...), stop) {
		hookProcess(t, env, e, 0)
	}
	// The delivery builds the turn after its grace and sends it: kill it
	// while the collector holds the export.
	var killed bool
	for deadline := time.Now().Add(15 * time.Second); !killed && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if parts, _ := filepath.Glob(filepath.Join(spoolDir, "*.otlp")); len(parts) == 0 {
			continue
		}
		time.Sleep(300 * time.Millisecond) // the export under way, held by the collector
		for _, pid := range cellProcesses(mark) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			killed = true
		}
	}
	if !killed {
		t.Fatal("no background delivery was seen to kill")
	}
	waitForCell(mark, 10*time.Second)
	recv.SlowDown(0)
	recv.Refuse(nil)
	prompt, pres, posts, stop = parallelTurn("conv-k", 2, 2)
	for _, e := range append(append(append([]string{prompt}, pres...), posts...), stop) {
		hookProcess(t, env, e, 0)
	}
	if r := runBinary(t, env, nil, "flush"); r.exit != 0 {
		t.Fatalf("flush: exit %d, %q", r.exit, r.stderr)
	}
	spans := waitForSpans(t, recv, 8, 15*time.Second)
	traces, tools, notSuccess := checkWhole(t, spans)
	if len(spans) != 8 || traces != 2 || tools != 4 || notSuccess != 0 {
		t.Errorf("%d spans, %d traces, %d tools (%d not a success); want both turns whole, once: 8, 2, 4, 0", len(spans), traces, tools, notSuccess)
	}
}
