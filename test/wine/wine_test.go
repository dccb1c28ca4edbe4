//go:build wine

package wine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

const wine64 = "/usr/lib/wine/wine64"

var (
	work   string // the tests' own directory
	prefix string // the Wine prefix
	exe    string // cursor-otel.exe
	fake   string // the stand-in agent, fakeagent.exe
	root   string // the repository
)

// TestMain builds cursor-otel and the stand-in agent for windows/amd64,
// makes a Wine prefix they run in (prefix.sh; CURSOR_OTEL_WINE names one
// made already), and keeps one wineserver up for all the tests, outside
// their process groups, so that ending a test's processes ends none of
// Wine's own.
func TestMain(m *testing.M) {
	if err := setUp(); err != nil {
		fmt.Fprintln(os.Stderr, "wine tests:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = exec.Command("/usr/lib/wine/wineserver", "-k").Run()
	os.RemoveAll(work)
	os.Exit(code)
}

func setUp() error {
	var err error
	if root, err = filepath.Abs("../.."); err != nil {
		return err
	}
	if work, err = os.MkdirTemp("", "cursor-otel-wine"); err != nil {
		return err
	}
	made := os.Getenv("CURSOR_OTEL_WINE")
	if made == "" {
		made = filepath.Join(work, "wine")
		if out, err := exec.Command("bash", "prefix.sh", made).CombinedOutput(); err != nil {
			return fmt.Errorf("prefix.sh: %v\n%s", err, out)
		}
	}
	prefix = filepath.Join(made, "prefix")
	os.Setenv("WINEPREFIX", prefix)
	os.Setenv("WINEDEBUG", "-all")
	exe, fake = filepath.Join(work, "cursor-otel.exe"), filepath.Join(work, "fakeagent.exe")
	for out, pkg := range map[string]string{exe: ".", fake: "./test/fakeagent"} {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %v\n%s", pkg, err, b)
		}
	}
	_ = exec.Command("/usr/lib/wine/wineserver", "-k").Run() // one left by a test run cut short
	if err := exec.Command("/usr/lib/wine/wineserver", "-p").Run(); err != nil {
		return fmt.Errorf("wineserver -p: %v", err)
	}
	// Wine's own services start with the prefix's first program and live
	// on; started now, with no stdio of a test's, they hold no test's
	// pipes open.
	return exec.Command(wine64, "cmd.exe", "/c", "ver").Run()
}

// win is a Linux path as a Windows program under Wine names it.
func win(path string) string { return "Z:" + strings.ReplaceAll(path, "/", `\`) }

type result struct {
	stdout, stderr string
	exit           int
	took           time.Duration
}

// run runs a Windows program under Wine with env added to the tests' own
// (PATH, HOME, the prefix), stdin given, bounded: a process group of its
// own, 60 s, and all of it ended when the test ends.
func run(t *testing.T, env []string, stdin, program string, args ...string) result {
	t.Helper()
	cmd := exec.Command(wine64, append([]string{program}, args...)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "WINEPREFIX=" + prefix, "WINEDEBUG=-all"}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second // what a program leaves running may hold its pipes
	began := time.Now()
	proctest.Start(t, cmd, 60*time.Second)
	err := cmd.Wait()
	r := result{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(began)}
	if exit, ok := err.(*exec.ExitError); ok {
		r.exit = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s: %v", program, err)
	}
	return r
}

// copyFile copies a file, as a user's copy or installer does.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// agentRuns are the arguments of each run of the stand-in agent.
func agentRuns(t *testing.T, path string) [][]string {
	t.Helper()
	b, _ := os.ReadFile(path)
	var runs [][]string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var args []string
		if err := json.Unmarshal([]byte(line), &args); err != nil {
			t.Fatalf("agent runs: %v", err)
		}
		runs = append(runs, args)
	}
	return runs
}

// poll waits for cond, or fails the test after within.
func poll(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(within); !cond(); time.Sleep(50 * time.Millisecond) { // polling what Wine's processes leave
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
	}
}

func readAll(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	return string(b)
}
