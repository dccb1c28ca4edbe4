package e2e

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

// phasedStream is a session whose tool calls come in phases, one model call
// each; gates are the line numbers where phases after the first begin.
func phasedStream(tools ...int) (stream []byte, gates []int, ids []string) {
	var b bytes.Buffer
	line := 0
	write := func(format string, args ...any) {
		fmt.Fprintf(&b, format+"\n", args...)
		line++
	}
	t := int64(1790000000000)
	write(`{"type":"system","subtype":"init","session_id":"s","model":"Auto"}`)
	for p, n := range tools {
		if p > 0 {
			gates = append(gates, line+1)
		}
		t += 100
		write(`{"type":"assistant","message":{"content":[{"type":"text","text":"phase %d"}]},"session_id":"s","model_call_id":"m%d","timestamp_ms":%d}`, p, p, t)
		for i := range n {
			id := fmt.Sprintf("p%d-t%d", p, i)
			ids = append(ids, id)
			write(`{"type":"tool_call","subtype":"started","call_id":%q,"tool_call":{"shellToolCall":{"args":{"command":"true"}}},"session_id":"s","model_call_id":"m%d","timestamp_ms":%d}`, id, p, t+1)
			t += 10
			write(`{"type":"tool_call","subtype":"completed","call_id":%q,"tool_call":{"shellToolCall":{"args":{"command":"true"},"result":{"success":{"exitCode":0}}}},"session_id":"s","model_call_id":"m%d","timestamp_ms":%d}`, id, p, t)
		}
	}
	write(`{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s"}`)
	return b.Bytes(), gates, ids
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// toolIDs are the call ids of the tool spans received.
func toolIDs(r *otlptest.Receiver) []string {
	var ids []string
	for _, s := range golden.FromOTLP(r.Spans()) {
		if strings.HasPrefix(s.Name, "execute_tool") {
			ids = append(ids, value(s, "gen_ai.tool.call.id"))
		}
	}
	slices.Sort(ids)
	return ids
}

// A collector restarted in the middle of a run loses none of the run's
// spans: those exported before stay exported, those that end while it is
// down are held and sent once it is back, and stdout does not wait.
func TestWrapCollectorRestart(t *testing.T) {
	stream, gates, ids := phasedStream(10, 10, 10)
	path := filepath.Join(t.TempDir(), "phased.ndjson")
	if err := os.WriteFile(path, stream, 0o644); err != nil {
		t.Fatal(err)
	}
	recv := otlptest.StartGRPC(t)
	cmd := exec.Command(binary, streamArgs()...)
	cmd.Env = withBaseEnv(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "OTEL_BSP_SCHEDULE_DELAY=50", "CURSOR_OTEL_LIVE_SPANS=true",
		"CURSOR_OTEL_AGENT=" + fakeAgent, "FAKEAGENT_STREAM=" + path, "FAKEAGENT_LINE_DELAY=1ms",
		fmt.Sprintf("FAKEAGENT_GATES=%d,%d", gates[0], gates[1])})
	gate, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout proctest.Output
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}

	waitFor(t, "the first phase's 10 tool spans", func() bool { return len(toolIDs(recv)) == 10 })
	recv.Stop()
	gate.Write([]byte{1}) // the second phase runs with the collector down
	// Once the second phase has passed through to stdout, the collector
	// comes back, refusing at first (Unavailable, as one still starting
	// does): the spans of the second phase are offered, refused, held, and
	// must arrive when it accepts, before the third phase begins.
	waitFor(t, "the second phase on stdout", func() bool { return bytes.Equal(stdout.Bytes(), firstLines(stream, gates[1]-1)) })
	refused := len(recv.Headers())
	recv.Refuse(status.Error(codes.Unavailable, "starting"))
	if err := recv.Restart(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "an export to the collector refusing", func() bool { return len(recv.Headers()) > refused })
	recv.Refuse(nil)
	waitFor(t, "the second phase's tool spans, sent again", func() bool { return len(toolIDs(recv)) == 20 })
	gate.Write([]byte{1})
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}

	if !bytes.Equal(stdout.Bytes(), stream) || stderr.Len() != 0 {
		t.Errorf("stdout identical: %v, stderr %q; want the stream and nothing", bytes.Equal(stdout.Bytes(), stream), stderr.String())
	}
	slices.Sort(ids)
	if got := toolIDs(recv); !slices.Equal(got, ids) {
		t.Errorf("tool spans received %v\nwant all %d: %v", got, len(ids), ids)
	}
}

// firstLines is the first n lines of stream.
func firstLines(stream []byte, n int) []byte {
	end := 0
	for range n {
		end += bytes.IndexByte(stream[end:], '\n') + 1
	}
	return stream[:end]
}

// An agent that floods its stdout while the collector is slow: stdout
// keeps pace with the agent, memory stays bounded, and tracing degrades
// (what it dropped is counted, in one line on stderr) instead of slowing
// the agent down.
func TestWrapFloodWithSlowCollector(t *testing.T) {
	const copies = 20000
	recording, err := os.ReadFile("examples/parallel-tools.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	recv := otlptest.StartGRPC(t)
	recv.CountOnly()
	recv.SlowDown(100 * time.Millisecond)
	env := []string{"FAKEAGENT_STREAM=examples/parallel-tools.ndjson", fmt.Sprintf("FAKEAGENT_FLOOD=%d", copies)}
	want := int64(len(recording)) * copies
	alone := flood(t, fakeAgent, env, want)
	wrapped := flood(t, binary, append([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeAgent}, env...), want)

	if alone.bytes != want || wrapped.bytes != want || wrapped.sum != alone.sum || wrapped.exit != 0 {
		t.Fatalf("stdout %d bytes (sum equal: %v), exit %d; want the agent's %d bytes and 0", wrapped.bytes, wrapped.sum == alone.sum, wrapped.exit, want)
	}
	t.Logf("%d MB through stdout: agent alone %v (%.0f MB/s), through cursor-otel %v (%.0f MB/s), exit %v after; peak RSS %d MiB while flooding; %s",
		want/1e6, alone.stdoutDone.Round(time.Millisecond), float64(want)/1e6/alone.stdoutDone.Seconds(),
		wrapped.stdoutDone.Round(time.Millisecond), float64(want)/1e6/wrapped.stdoutDone.Seconds(),
		(wrapped.exited - wrapped.stdoutDone).Round(time.Millisecond), wrapped.peakRSS>>20, strings.TrimSpace(wrapped.stderr))
	// Generous bounds: they catch a pump that waits for the tracer (it
	// would take the seconds the slow collector takes), not a busy machine.
	if limit := 3*alone.stdoutDone + time.Second; timingChecked(t) && wrapped.stdoutDone > limit {
		t.Errorf("stdout took %v through cursor-otel, %v alone: it must keep pace", wrapped.stdoutDone, alone.stdoutDone)
	}
	if wrapped.exited-wrapped.stdoutDone > 3*time.Second {
		t.Errorf("exit came %v after stdout ended: more than the 3 s flush timeout", wrapped.exited-wrapped.stdoutDone)
	}
	// Unbounded, the backlog alone would take most of the 154 MB. (Only
	// Linux says a live process's peak memory, in /proc.)
	if runtime.GOOS != "linux" {
		t.Log("peak RSS not checked: /proc is Linux's")
	} else if timingChecked(t) && (wrapped.peakRSS == 0 || wrapped.peakRSS > 100<<20) {
		t.Errorf("peak RSS %d MiB while flooding: the tracer's backlog must stay bounded", wrapped.peakRSS>>20)
	}
	if lines := strings.Count(wrapped.stderr, "\n"); lines != 1 || !regexp.MustCompile(`[0-9.]+ MB of it not traced|\d+ of \d+ spans not exported`).MatchString(wrapped.stderr) {
		t.Errorf("stderr %q; want one line counting what was not traced or not exported", wrapped.stderr)
	}
}

type flooded struct {
	bytes              int64
	sum                [32]byte
	exit               int
	stderr             string
	stdoutDone, exited time.Duration
	peakRSS            int64
}

// flood runs a command and reads its stdout as fast as it comes, noting
// when the last of the bytes it expects arrived (stdout itself closes only
// when the command exits), and when the command exited.
func flood(t *testing.T, bin string, env []string, expect int64) flooded {
	t.Helper()
	cmd := exec.Command(bin, streamArgs()...)
	cmd.Env = withBaseEnv(t, env)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var f flooded
	h := sha256.New()
	buf := make([]byte, 1<<20)
	for {
		n, err := stdout.Read(buf)
		h.Write(buf[:n])
		if f.bytes += int64(n); f.bytes == expect && n > 0 {
			f.stdoutDone = time.Since(start)
			f.peakRSS = peakRSS(t, cmd.Process.Pid)
		}
		if err != nil {
			break
		}
	}
	cmd.Wait()
	f.exited = time.Since(start)
	f.exit, f.stderr = cmd.ProcessState.ExitCode(), stderr.String()
	copy(f.sum[:], h.Sum(nil))
	return f
}

// peakRSS is a live process's peak resident memory so far, VmHWM; 0 once
// it has exited, or where there is no /proc (macOS). (Its rusage would
// count this test's memory too: a child starts as a vfork.)
func peakRSS(t *testing.T, pid int) int64 {
	if runtime.GOOS != "linux" {
		return 0
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb)
			return kb << 10
		}
	}
	return 0
}
