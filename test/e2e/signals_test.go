//go:build unix

package e2e

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

// hangingAgent is the environment of a stand-in agent that writes a short
// stream, then waits; it records the signals it gets in signals and its
// pid in pidfile.
func hangingAgent(t *testing.T, endpoint string, extra ...string) (env []string, signals, pidfile string) {
	dir := t.TempDir()
	signals, pidfile = filepath.Join(dir, "signals"), filepath.Join(dir, "pid")
	env = append([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint, "CURSOR_OTEL_AGENT=" + fakeAgent,
		"FAKEAGENT_STREAM=spanmap/testdata/streams/unmatched-tools.ndjson", "FAKEAGENT_SPEED=1000000",
		"FAKEAGENT_HANG=1", "FAKEAGENT_SIGNALS=" + signals, "FAKEAGENT_PIDFILE=" + pidfile}, extra...)
	return env, signals, pidfile
}

// waitFile waits until path holds at least n lines.
func waitFile(t *testing.T, path string, n int) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.Count(string(b), "\n") >= n {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s has %q after 10s, want %d lines", path, b, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// 8. Every signal reaches the agent exactly once, whoever sends it:
// kill of cursor-otel, a CI runner signalling cursor-otel's process group.
// The agent records every signal and goes on; a second signal sent the
// same way follows the first, so that a duplicate of the first, if any,
// would be recorded before it.
func TestSignalsReachTheAgentOnce(t *testing.T) {
	for _, tt := range []struct {
		name  string
		sig   syscall.Signal
		group bool // sent to cursor-otel's process group, as CI runners do
	}{
		{"kill -INT cursor-otel", syscall.SIGINT, false},
		{"kill -TERM cursor-otel", syscall.SIGTERM, false},
		{"kill -TERM -PGID (a CI runner)", syscall.SIGTERM, true},
		{"kill -INT -PGID", syscall.SIGINT, true},
		{"kill -QUIT -PGID", syscall.SIGQUIT, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recv := otlptest.StartGRPC(t)
			env, signals, pidfile := hangingAgent(t, recv.Endpoint, "FAKEAGENT_ON_SIGNAL=continue")
			cmd := exec.Command(binary, streamArgs()...)
			cmd.Env = withBaseEnv(t, env)
			cmd.Stdout = io.Discard
			proctest.Start(t, cmd, 20*time.Second)
			agentPid, _ := strconv.Atoi(strings.TrimSpace(waitFile(t, pidfile, 1)))
			target := cmd.Process.Pid
			if tt.group {
				target = -target
			}
			syscall.Kill(target, tt.sig)
			waitFile(t, signals, 1)
			syscall.Kill(target, syscall.SIGHUP)
			got := waitFile(t, signals, 2)
			syscall.Kill(agentPid, syscall.SIGKILL)
			cmd.Wait()
			if want := tt.sig.String() + "\nhangup\n"; got != want {
				t.Errorf("the agent received %q, want %q: each signal once", got, want)
			}
			s := sessionSpan(t, golden.FromOTLP(recv.Spans()))
			if tt.sig == syscall.SIGINT { // the person cancelled the turn: no failure
				if s.Status == "Error" || len(s.Events) < 2 {
					t.Errorf("session %s %q, %d events; want a cancelled turn (no error), each signal an event", s.Status, s.StatusMessage, len(s.Events))
				}
				return
			}
			if s.Status != "Error" || !strings.HasPrefix(s.StatusMessage, "interrupted") || len(s.Events) < 2 {
				t.Errorf("session %s %q, %d events; want it interrupted, each signal an event", s.Status, s.StatusMessage, len(s.Events))
			}
		})
	}
}

// An agent that handles Ctrl-C and still ends with a success result did not
// fail; the signal is an event on its session.
func TestHandledSignalIsNoFailure(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	dir := t.TempDir()
	signals, pidfile := filepath.Join(dir, "signals"), filepath.Join(dir, "pid")
	cmd := exec.Command(binary, streamArgs()...)
	cmd.Env = withBaseEnv(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeAgent,
		"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "FAKEAGENT_GATES=5", "FAKEAGENT_SIGNALS=" + signals,
		"FAKEAGENT_ON_SIGNAL=continue", "FAKEAGENT_PIDFILE=" + pidfile})
	gate, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	proctest.Start(t, cmd, 20*time.Second)
	waitFile(t, pidfile, 1)
	syscall.Kill(cmd.Process.Pid, syscall.SIGINT)
	waitFile(t, signals, 1)
	gate.Write([]byte("x"))
	gate.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
	s := sessionSpan(t, golden.FromOTLP(recv.Spans()))
	if s.Status == "Error" || len(s.Events) == 0 || s.Events[len(s.Events)-1].Name != "cursor.signal" {
		t.Errorf("session %s %q, events %v; want no error and a cursor.signal event", s.Status, s.StatusMessage, s.Events)
	}
}

// ptyRun runs cursor-otel at a terminal of its own, as a shell's job: a
// session and a process group of its own, the terminal its controlling
// one, with cursor-otel's group in the foreground.
func ptyRun(t *testing.T, env []string, args ...string) (*exec.Cmd, *os.File) {
	t.Helper()
	cmd, tty := ptyStart(t, env, args...)
	go io.Copy(io.Discard, tty)
	return cmd, tty
}

// ptyStart is ptyRun leaving the terminal's output to the caller.
func ptyStart(t *testing.T, env []string, args ...string) (*exec.Cmd, *os.File) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = withBaseEnv(t, env)
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { tty.Close(); proctest.KillTree(pid) })
	watchdog := time.AfterFunc(20*time.Second, func() { proctest.KillTree(pid) })
	t.Cleanup(func() { watchdog.Stop() })
	return cmd, tty
}

// At a terminal: Ctrl-C and a kill of cursor-otel each reach the agent
// once.
func TestSignalsAtATerminal(t *testing.T) {
	for _, tt := range []struct {
		name string
		send func(cmd *exec.Cmd, tty *os.File)
	}{
		{"Ctrl-C", func(_ *exec.Cmd, tty *os.File) { tty.Write([]byte{3}) }},
		{"kill -INT cursor-otel", func(cmd *exec.Cmd, _ *os.File) { syscall.Kill(cmd.Process.Pid, syscall.SIGINT) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recv := otlptest.StartGRPC(t)
			env, signals, pidfile := hangingAgent(t, recv.Endpoint)
			cmd, tty := ptyRun(t, env, streamArgs()...)
			waitFile(t, pidfile, 1)
			tt.send(cmd, tty)
			cmd.Wait()
			if got := readFile(t, signals); got != "interrupt\n" {
				t.Errorf("the agent received %q, want one interrupt", got)
			}
			if exit := cmd.ProcessState.ExitCode(); exit != 130 {
				t.Errorf("exit %d, want 130", exit)
			}
		})
	}
}

// At a terminal, an agent that reads it is given it: it reads what the
// user types, and Ctrl-C then reaches it from the terminal, once.
func TestAgentIsGivenTheTerminal(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	env, signals, pidfile := hangingAgent(t, recv.Endpoint, "FAKEAGENT_READ_TTY=1")
	cmd, tty := ptyStart(t, env, streamArgs()...)
	out := bufio.NewReader(tty)
	waitFile(t, pidfile, 1)
	tty.Write([]byte("yes\n"))
	for {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("the agent's output ended before it said what it read: %v", err)
		}
		if strings.Contains(line, "read from the terminal: yes") {
			break
		}
	}
	go io.Copy(io.Discard, out)
	tty.Write([]byte{3}) // Ctrl-C, now from the agent's own terminal

	cmd.Wait()
	if got := readFile(t, signals); got != "interrupt\n" {
		t.Errorf("the agent received %q, want one interrupt", got)
	}
}

// Ctrl-Z stops the agent and cursor-otel, as it would stop the agent
// alone, and SIGCONT (the shell's fg) continues both.
func TestCtrlZStopsAndContinuesBoth(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	env, _, pidfile := hangingAgent(t, recv.Endpoint)
	cmd, tty := ptyRun(t, env, streamArgs()...)
	agentPid, _ := strconv.Atoi(strings.TrimSpace(waitFile(t, pidfile, 1)))
	tty.Write([]byte{26}) // Ctrl-Z
	waitState(t, cmd.Process.Pid, "T")
	waitState(t, agentPid, "T")
	syscall.Kill(cmd.Process.Pid, syscall.SIGCONT)
	waitState(t, agentPid, "S")
	waitState(t, cmd.Process.Pid, "S")
	syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
	cmd.Wait()
	if exit := cmd.ProcessState.ExitCode(); exit != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d after TERM", exit)
	}
}

// waitState waits until ps shows pid's state starting with state (T:
// stopped, S: sleeping).
func waitState(t *testing.T, pid int, state string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output()
		got := strings.TrimSpace(string(b))
		if strings.HasPrefix(got, state) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d is %q after 10s, want %q", pid, got, state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// 9. If cursor-otel is killed outright, the agent does not run on.
func TestNoOrphanedAgent(t *testing.T) {
	cmd, agentPid := startWithHangingAgent(t)
	killedAgentDies(t, cmd, agentPid)
}

// startWithHangingAgent starts cursor-otel with an agent that runs until
// killed and ignores TERM, and returns it and the agent's pid.
func startWithHangingAgent(t *testing.T) (*exec.Cmd, int) {
	env, _, pidfile := hangingAgent(t, otlptest.Down(t), "FAKEAGENT_ON_SIGNAL=continue")
	cmd := exec.Command(binary, streamArgs()...)
	cmd.Env = withBaseEnv(t, env)
	cmd.Stdout = io.Discard
	proctest.Start(t, cmd, 20*time.Second)
	agentPid, _ := strconv.Atoi(strings.TrimSpace(waitFile(t, pidfile, 1)))
	t.Cleanup(func() { syscall.Kill(agentPid, syscall.SIGKILL) })
	return cmd, agentPid
}

// killedAgentDies kills cursor-otel (SIGKILL: no chance to clean up) and
// waits for its agent to die too.
func killedAgentDies(t *testing.T, cmd *exec.Cmd, agentPid int) {
	t.Helper()
	syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	// The agent ignores TERM here; the watchdog's KILL follows 2 s later.
	deadline := time.Now().Add(10 * time.Second)
	for proctest.Alive(agentPid) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent (%d) still runs 10 s after cursor-otel was killed", agentPid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// 10. With stdout and stderr going to one pipe (2>&1, | tee), the lines
// keep the order the agent wrote them in.
func TestCombinedOutputKeepsTheAgentsOrder(t *testing.T) {
	const lines = 2000
	run := func(bin string, env ...string) string {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, streamArgs()...)
		cmd.Env = withBaseEnv(t, append([]string{"FAKEAGENT_INTERLEAVE=" + strconv.Itoa(lines), "OTEL_TRACES_EXPORTER=none"}, env...))
		cmd.Stdout, cmd.Stderr = w, w
		proctest.Start(t, cmd, 20*time.Second)
		w.Close()
		out, _ := io.ReadAll(r)
		cmd.Wait()
		return string(out)
	}
	alone := run(fakeAgent)
	through := run(binary, "CURSOR_OTEL_AGENT="+fakeAgent)
	if strings.Count(alone, "\n") != lines+1 {
		t.Fatalf("the agent alone wrote %d lines", strings.Count(alone, "\n"))
	}
	if through != alone {
		moved := 0
		a, b := strings.Split(alone, "\n"), strings.Split(through, "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				moved++
			}
		}
		t.Errorf("through cursor-otel, %d of %d lines are not where the agent wrote them", moved, lines)
	}
}

// A signal that comes after the agent ended, while cursor-otel exports
// (a second Ctrl-C, a CI runner's second SIGTERM), finds no agent to pass
// it to and is let be: the trace is still flushed, and the exit status is
// still the agent's.
func TestSignalDuringTheFlushIsLetBe(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	recv.SlowDown(1500 * time.Millisecond) // the flush lasts while the signal comes
	env, _, pidfile := hangingAgent(t, recv.Endpoint)
	cmd := exec.Command(binary, streamArgs()...)
	cmd.Env = withBaseEnv(t, env)
	cmd.Stdout = io.Discard
	proctest.Start(t, cmd, 20*time.Second)
	agentPid, _ := strconv.Atoi(strings.TrimSpace(waitFile(t, pidfile, 1)))
	syscall.Kill(agentPid, syscall.SIGTERM) // the agent alone: it exits 143
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(agentPid, 0) == nil { // until cursor-otel has reaped it
		if time.Now().After(deadline) {
			t.Fatal("the agent was not reaped within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	syscall.Kill(cmd.Process.Pid, syscall.SIGINT)
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 143 {
		t.Fatalf("cursor-otel ended with %v, want the agent's exit status 143", err)
	}
	if s := sessionSpan(t, golden.FromOTLP(recv.Spans())); s.Status != "Error" {
		t.Errorf("session %s %q, want the agent's failure exported", s.Status, s.StatusMessage)
	}
}
