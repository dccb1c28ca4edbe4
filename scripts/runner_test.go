package scripts

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

// tempRoot holds what TestMain builds, for all the tests.
var tempRoot string

// fakeAgent is the stand-in cursor-agent (test/fakeagent).
var fakeAgent string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cursor-otel-action")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tempRoot = dir
	fakeAgent = filepath.Join(dir, "fakeagent")
	if out, err := exec.Command("go", "build", "-o", fakeAgent, "../test/fakeagent").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build fakeagent: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runnerTools are the programs install-action.sh runs, as every GitHub
// runner has them; a runner here has these and nothing else (no Go).
var runnerTools = []string{"bash", "curl", "mktemp", "rm", "tail", "awk", "sha256sum", "mkdir", "tar", "gzip", "unzip", "mv", "cp", "ln", "tr"}

// runner is a GitHub Actions job on this machine: its temporary
// directory, its environment files, and a PATH of the runner's tools.
type runner struct {
	goos, goarch string // the platform it says it is (RUNNER_OS, RUNNER_ARCH)
	temp         string // RUNNER_TEMP
	path         string // the runner's PATH: its tools, and no go
	files        map[string]string
	agentDir     string // where Cursor's installer put the real cursor-agent
}

func newRunner(t *testing.T) *runner {
	t.Helper()
	r := &runner{goos: runtime.GOOS, goarch: runtime.GOARCH, temp: t.TempDir(), files: map[string]string{}}
	tools := t.TempDir()
	for _, tool := range runnerTools {
		found, err := exec.LookPath(tool)
		if err != nil {
			t.Fatalf("this machine has no %s, which GitHub's runners have (install it)", tool)
		}
		if err := os.Symlink(found, filepath.Join(tools, tool)); err != nil {
			t.Fatal(err)
		}
	}
	r.path = tools
	if _, err := lookPath("go", r.path); err == nil {
		t.Fatalf("go is on the runner's PATH %s", r.path)
	}
	files := t.TempDir()
	for _, name := range []string{"GITHUB_PATH", "GITHUB_ENV", "GITHUB_OUTPUT"} {
		r.files[name] = filepath.Join(files, strings.ToLower(name))
		if err := os.WriteFile(r.files[name], nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r.agentDir = t.TempDir()
	if err := os.Symlink(fakeAgent, filepath.Join(r.agentDir, "cursor-agent")); err != nil {
		t.Fatal(err)
	}
	return r
}

// runnerNames are RUNNER_OS and RUNNER_ARCH as GitHub sets them.
var runnerNames = map[string]string{"linux": "Linux", "darwin": "macOS", "windows": "Windows", "amd64": "X64", "arm64": "ARM64"}

// step is one step's run: what it printed, its exit status, its summary.
type step struct {
	stdout, stderr string
	exit           int
	summary        string // what it wrote to its $GITHUB_STEP_SUMMARY
	took           time.Duration
}

// action runs install-action.sh as action.yml does, with the inputs given
// (INPUT_…, ACTION_…) and the releases at releasesURL.
func (r *runner) action(t *testing.T, releasesURL string, env ...string) step {
	t.Helper()
	base := []string{
		"RUNNER_OS=" + runnerNames[r.goos], "RUNNER_ARCH=" + runnerNames[r.goarch], "RUNNER_TEMP=" + r.temp,
		"CURSOR_OTEL_RELEASES_URL=" + releasesURL, "ACTION_REPOSITORY=cursor-otel/cursor-otel",
		"INPUT_SUMMARY=true", "INPUT_INSTALL_AS_AGENT=true",
	}
	return r.run(t, "bash", []string{"install-action.sh"}, r.path, append(base, env...))
}

// later runs a later step of the job: PATH with what $GITHUB_PATH added
// first, then the real agent's directory and the runner's tools; the
// environment with what $GITHUB_ENV set; a summary file of its own.
func (r *runner) later(t *testing.T, env []string, name string, args ...string) step {
	t.Helper()
	var path []string
	for _, line := range lines(t, r.files["GITHUB_PATH"]) {
		path = append([]string{line}, path...) // each added directory goes first
	}
	path = append(path, r.agentDir, r.path)
	return r.run(t, name, args, strings.Join(path, string(os.PathListSeparator)), append(envFile(t, r.files["GITHUB_ENV"]), env...))
}

// run runs one step, bounded (cursor-otel starts the agent), with a new
// $GITHUB_STEP_SUMMARY.
func (r *runner) run(t *testing.T, name string, args []string, path string, env []string) step {
	t.Helper()
	summary := filepath.Join(t.TempDir(), "step_summary")
	if err := os.WriteFile(summary, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bin, err := lookPath(name, path)
	if err != nil {
		t.Fatalf("%s is not on the step's PATH %s", name, path)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"PATH=" + path, "HOME=" + t.TempDir(), "GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + summary,
		"GITHUB_PATH=" + r.files["GITHUB_PATH"], "GITHUB_ENV=" + r.files["GITHUB_ENV"], "GITHUB_OUTPUT=" + r.files["GITHUB_OUTPUT"]}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		cmd.Env = slices.DeleteFunc(cmd.Env, func(e string) bool { return strings.HasPrefix(e, k+"=") })
		cmd.Env = append(cmd.Env, kv)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	proctest.Start(t, cmd, time.Minute)
	err = cmd.Wait()
	s := step{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(began)}
	if exit, ok := err.(*exec.ExitError); ok {
		s.exit = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s: %v", name, err)
	}
	s.summary = readFile(t, summary)
	return s
}

// lookPath finds name on path, not on the test's own PATH.
func lookPath(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		candidate := filepath.Join(dir, name)
		if info, err := os.Stat(candidate); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return candidate, nil
		}
	}
	return "", exec.ErrNotFound
}

// envFile reads $GITHUB_ENV as the runner does: NAME=value lines, and
// NAME<<DELIMITER blocks.
func envFile(t *testing.T, path string) []string {
	t.Helper()
	var env []string
	ls := lines(t, path)
	for i := 0; i < len(ls); i++ {
		if name, delim, ok := strings.Cut(ls[i], "<<"); ok && !strings.Contains(name, "=") {
			var value []string
			for i++; i < len(ls) && ls[i] != delim; i++ {
				value = append(value, ls[i])
			}
			env = append(env, name+"="+strings.Join(value, "\n"))
			continue
		}
		env = append(env, ls[i])
	}
	return env
}

func lines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
