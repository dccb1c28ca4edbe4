//go:build wine

package wine

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// hostile are arguments cmd.exe would read as operators, quotes or
// breaks, were they not quoted for it.
var hostile = []string{"-p", "--output-format", "stream-json", `fix a & b | c < d > e ^ f "quoted" and spaces`, `C:\path with\trailing\`, `x^^y`, ""}

// dropIn lays cursor-otel out as cursor-agent.exe, first on the Windows
// PATH, and the stand-in agent after it as shape says: an .exe, or a
// .cmd shim around it (as npm installs a command). It returns the
// drop-in and the environment that finds the agent.
func dropIn(t *testing.T, shape string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	first, agentDir := filepath.Join(dir, "otel"), filepath.Join(dir, "agent")
	for _, d := range []string{first, agentDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	drop := filepath.Join(first, "cursor-agent.exe")
	copyFile(t, exe, drop)
	switch shape {
	case "exe":
		copyFile(t, fake, filepath.Join(agentDir, "cursor-agent.exe"))
	case "cmd":
		shim := "@echo off\r\n\"" + win(fake) + "\" %*\r\n"
		if err := os.WriteFile(filepath.Join(agentDir, "cursor-agent.cmd"), []byte(shim), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return drop, []string{"WINEPATH=" + win(first) + ";" + win(agentDir)}
}

// The drop-in around an .exe agent and a .cmd shim: the agent runs once,
// with the user's arguments exactly, hostile ones included; stdout is the
// agent's, byte for byte; the exit status is the agent's.
func TestDropIn(t *testing.T) {
	stream := filepath.Join(root, "examples", "fix-failing-test.ndjson")
	want, err := os.ReadFile(stream)
	if err != nil {
		t.Fatal(err)
	}
	for _, shape := range []string{"exe", "cmd"} {
		for _, exit := range []int{0, 3} {
			t.Run(shape+"/exit "+strconv.Itoa(exit), func(t *testing.T) {
				drop, env := dropIn(t, shape)
				runs := filepath.Join(t.TempDir(), "runs")
				env = append(env, "FAKEAGENT_STREAM="+win(stream), "FAKEAGENT_RUNS="+win(runs), "FAKEAGENT_EXIT="+strconv.Itoa(exit), "OTEL_TRACES_EXPORTER=none", "OTEL_METRICS_EXPORTER=none")
				r := run(t, env, "", drop, hostile...)
				if r.stdout != string(want) || r.exit != exit {
					t.Errorf("stdout the agent's: %v (%d bytes), exit %d; want the agent's and %d; stderr %q", r.stdout == string(want), len(r.stdout), r.exit, exit, r.stderr)
				}
				got := agentRuns(t, runs)
				if len(got) != 1 || !slices.Equal(got[0], hostile) {
					t.Errorf("the agent ran %d times, with %q; want once, with %q", len(got), got, hostile)
				}
			})
		}
	}
}

// --stall-timeout ends a silent agent and all it started: status 143.
func TestStallTimeout(t *testing.T) {
	drop, env := dropIn(t, "exe")
	env = append(env, "FAKEAGENT_STREAM="+win(filepath.Join(root, "examples", "failed-run.ndjson")), "FAKEAGENT_HANG=1",
		"CURSOR_OTEL_STALL_TIMEOUT=1s", "OTEL_TRACES_EXPORTER=none", "OTEL_METRICS_EXPORTER=none")
	r := run(t, env, "", drop, "-p", "--output-format", "stream-json", "hang")
	if r.exit != 143 || r.took > 20*time.Second {
		t.Errorf("exit %d after %v, stderr %q; want 143 soon after the second of silence", r.exit, r.took, r.stderr)
	}
}

// hooks install and uninstall over a project's CRLF hooks.json: installed
// once, with the .exe's path as cmd.exe reads it; uninstalled, the file
// is given back byte for byte.
func TestHooksInstall(t *testing.T) {
	project := t.TempDir()
	hooks := filepath.Join(project, ".cursor", "hooks.json")
	if err := os.MkdirAll(filepath.Dir(hooks), 0o755); err != nil {
		t.Fatal(err)
	}
	before := "{\r\n  \"version\": 1,\r\n  \"hooks\": {\r\n    \"stop\": [{\"command\": \"./mine.cmd\"}]\r\n  }\r\n}\r\n"
	if err := os.WriteFile(hooks, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	inProject := func(args ...string) result {
		cmd := append([]string{"/c", "cd /d " + win(project) + " && " + win(exe)}, args...)
		return run(t, nil, "", "cmd.exe", cmd...)
	}
	r := inProject("hooks", "install", "--project")
	if r.exit != 0 || !strings.Contains(r.stdout, "installed in") {
		t.Fatalf("install: exit %d, %q %q", r.exit, r.stdout, r.stderr)
	}
	installed := readAll(t, hooks)
	if !strings.Contains(installed, strings.ReplaceAll(win(exe), `\`, `\\`)+" hook") || !strings.Contains(installed, "./mine.cmd") {
		t.Errorf("hooks.json after install:\n%s", installed)
	}
	if r := inProject("hooks", "install", "--project"); r.exit != 0 || readAll(t, hooks) != installed {
		t.Errorf("a second install changed hooks.json: exit %d", r.exit)
	}
	if r := inProject("hooks", "uninstall", "--project"); r.exit != 0 || readAll(t, hooks) != before {
		t.Errorf("uninstall: exit %d, hooks.json:\n%q\nwant\n%q", r.exit, readAll(t, hooks), before)
	}
}

// A hook conversation, one Windows process an event, into a receiver on
// the Linux side: each hook answers at once and silently, and the
// background delivery (a detached process out of the hook's job) exports
// the conversation's spans, once: its 2 turns as whole traces (its end
// is no trace of its own: its facts are on the last turn's root).
func TestHookConversation(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "OTEL_METRICS_EXPORTER=none",
		"CURSOR_OTEL_STATE_DIR=" + win(t.TempDir()), "CURSOR_OTEL_SPOOL=" + win(t.TempDir())}
	b, err := os.ReadFile(filepath.Join(root, "spanmap", "testdata", "hooks", "cli-2026.10.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		r := run(t, env, line+"\n", exe, "hook")
		if r.exit != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, "{") {
			t.Errorf("hook: exit %d, stdout %q, stderr %q", r.exit, r.stdout, r.stderr)
		}
	}
	poll(t, "the conversation's 7 spans", 30*time.Second, func() bool { return recv.SpanCount() >= 7 })
	spans := golden.FromOTLP(recv.Spans())
	seen := map[string]bool{}
	for _, s := range spans {
		if seen[s.SpanID] {
			t.Errorf("%s arrived twice", s.Name)
		}
		seen[s.SpanID] = true
	}
	traces := map[string]bool{}
	for _, s := range spans {
		traces[s.TraceID] = true
	}
	if len(spans) != 7 || len(traces) != 2 {
		t.Errorf("%d spans in %d traces, want 7 in 2 (2 turns)", len(spans), len(traces))
	}
}

// With the collector down, a replay told to --keep keeps its session in the spool, in
// %LOCALAPPDATA%\cursor-otel\spool by default; cursor-otel flush delivers
// it when the collector is back at the same address.
func TestSpoolAndFlush(t *testing.T) {
	down := otlptest.Down(t)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + down, "OTEL_METRICS_EXPORTER=none"}
	r := run(t, env, "", exe, "replay", "--quiet", "--keep", win(filepath.Join(root, "examples", "failed-run.ndjson")))
	if r.exit != 1 || !strings.Contains(r.stderr, `AppData\Local\cursor-otel\spool`) {
		t.Fatalf("replay with the collector down: exit %d, stderr %q; want 1 and where the session is kept", r.exit, r.stderr)
	}
	kept, _ := filepath.Glob(filepath.Join(prefix, "drive_c", "users", "*", "AppData", "Local", "cursor-otel", "spool", "*.otlp"))
	if len(kept) == 0 {
		t.Fatal("nothing kept under the prefix's %LOCALAPPDATA%")
	}
	recv, err := otlptest.ListenGRPC(strings.TrimPrefix(down, "http://"), nil)
	if err != nil {
		t.Skipf("the collector's port was taken meanwhile: %v", err)
	}
	t.Cleanup(recv.Stop)
	r = run(t, env, "", exe, "flush")
	if r.exit != 0 || !strings.Contains(r.stdout, "delivered 1 session (5 spans)") || recv.SpanCount() != 5 {
		t.Errorf("flush: exit %d, stdout %q, stderr %q; %d spans arrived", r.exit, r.stdout, r.stderr, recv.SpanCount())
	}
}

// A wrapped run with a session kept for its collector starts the
// background delivery: the kept session arrives, once, beside the run's
// own, and the agent ran once.
func TestBackgroundDelivery(t *testing.T) {
	spool := win(t.TempDir())
	down := otlptest.Down(t)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + down, "OTEL_METRICS_EXPORTER=none", "CURSOR_OTEL_SPOOL=" + spool}
	if r := run(t, env, "", exe, "replay", "--quiet", "--keep", win(filepath.Join(root, "examples", "failed-run.ndjson"))); r.exit != 1 {
		t.Fatalf("keeping a session: exit %d, %q", r.exit, r.stderr)
	}
	recv, err := otlptest.ListenGRPC(strings.TrimPrefix(down, "http://"), nil)
	if err != nil {
		t.Skipf("the collector's port was taken meanwhile: %v", err)
	}
	t.Cleanup(recv.Stop)
	drop, more := dropIn(t, "exe")
	runs := filepath.Join(t.TempDir(), "runs")
	env = append(append(env, more...), "FAKEAGENT_STREAM="+win(filepath.Join(root, "examples", "fix-failing-test.ndjson")), "FAKEAGENT_RUNS="+win(runs))
	if r := run(t, env, "", drop, "-p", "--output-format", "stream-json", "go"); r.exit != 0 {
		t.Fatalf("wrapped run: exit %d, %q", r.exit, r.stderr)
	}
	poll(t, "the kept session and the run's own (5 + 11 spans)", 30*time.Second, func() bool { return recv.SpanCount() >= 16 })
	time.Sleep(time.Second) // a second delivery, were there one, would show by now
	if n := recv.SpanCount(); n != 16 {
		t.Errorf("%d spans arrived, want 16", n)
	}
	if n := len(agentRuns(t, runs)); n != 1 {
		t.Errorf("the agent ran %d times, want once", n)
	}
}

// The job object: cursor-otel killed outright (as Task Manager or a CI
// runner does), the agent it started does not run on.
func TestAgentDiesWithCursorOtel(t *testing.T) {
	drop, env := dropIn(t, "exe")
	pidfile := filepath.Join(t.TempDir(), "pid")
	env = append(env, "FAKEAGENT_STREAM="+win(filepath.Join(root, "examples", "failed-run.ndjson")), "FAKEAGENT_HANG=1",
		"FAKEAGENT_PIDFILE="+win(pidfile), "OTEL_TRACES_EXPORTER=none", "OTEL_METRICS_EXPORTER=none")
	cmd := exec.Command(wine64, drop, "-p", "--output-format", "stream-json", "hang")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "WINEPREFIX=" + prefix, "WINEDEBUG=-all"}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	poll(t, "the agent started", 30*time.Second, func() bool { _, err := os.Stat(pidfile); return err == nil })
	agent := agentProcess(t)
	if agent == 0 {
		t.Fatal("no process of the stand-in agent found")
	}
	_ = cmd.Process.Kill() // cursor-otel's own process; the agent is in another
	_ = cmd.Wait()
	killed := time.Now()
	poll(t, "the agent ended with cursor-otel", 15*time.Second, func() bool { return syscall.Kill(agent, 0) != nil || zombie(agent) })
	t.Logf("the agent (process %d) ended %v after cursor-otel was killed", agent, time.Since(killed).Round(time.Millisecond))
}

// agentProcess is the Linux process Wine runs the stand-in agent in.
func agentProcess(t *testing.T) int {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.Contains(string(b), "cursor-agent.exe") && strings.Contains(string(b), `\agent\`) {
			return pid
		}
	}
	return 0
}

func zombie(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err != nil || strings.Contains(string(b), ") Z ")
}
