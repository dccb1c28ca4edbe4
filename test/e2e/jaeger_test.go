package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// The CI examples are valid YAML, run the agent through cursor-otel with
// the collector from secrets, and fail their step when the agent fails,
// though they pipe its output through tee. On GitHub, the project's action
// installs cursor-otel as cursor-agent with the collector and the step
// summary, and a later step runs cursor-agent.
func TestCIExamples(t *testing.T) {
	var gh struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses  string            `yaml:"uses"`
				With  map[string]string `yaml:"with"`
				Run   string            `yaml:"run"`
				Shell string            `yaml:"shell"`
				Env   map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	readYAML(t, "examples/github-actions.yml", &gh)
	found := false
	for _, job := range gh.Jobs {
		installed := false
		for _, s := range job.Steps {
			if strings.HasPrefix(s.Uses, "cursor-otel/cursor-otel@") {
				installed = s.With["otlp-endpoint"] == "${{ secrets.OTEL_EXPORTER_OTLP_ENDPOINT }}" && s.With["summary"] != "false"
			}
			if installed && strings.Contains(s.Run, "cursor-agent -p") {
				found = s.Env["CURSOR_API_KEY"] == "${{ secrets.CURSOR_API_KEY }}"
				// GitHub runs a step's script with bash -e, or with
				// -eo pipefail when the step says shell: bash.
				flags := []string{"-e"}
				if s.Shell == "bash" {
					flags = []string{"--noprofile", "--norc", "-eo", "pipefail"}
				}
				if code := runFailingAgentScript(t, flags, s.Run); code == 0 {
					t.Errorf("github-actions.yml: the step passes when the agent exits 3")
				}
			}
		}
	}
	if !found {
		t.Error("github-actions.yml: no step runs cursor-agent, with the key from secrets, after the action installed cursor-otel with the collector from secrets and a step summary")
	}

	var gl map[string]struct {
		Script    []string          `yaml:"script"`
		Variables map[string]string `yaml:"variables"`
		Artifacts struct{ Paths []string }
	}
	readYAML(t, "examples/gitlab-ci.yml", &gl)
	job, ok := gl["agent"]
	i := slices.IndexFunc(job.Script, func(line string) bool { return strings.HasPrefix(line, "cursor-otel -- ") })
	if !ok || i < 0 || !slices.Contains(job.Artifacts.Paths, job.Variables["CURSOR_OTEL_SUMMARY"]) {
		t.Errorf("gitlab-ci.yml agent job %+v: want cursor-otel run and its summary kept", job)
	}
	// GitLab runs the script's lines in one bash, failing at the first
	// line that fails.
	if code := runFailingAgentScript(t, []string{"-e"}, strings.Join(job.Script, "\n")); code == 0 {
		t.Errorf("gitlab-ci.yml: the job passes when the agent exits 3")
	}
}

// runFailingAgentScript runs a CI script in bash with flags, where
// cursor-otel is an agent that fails with status 3, and returns bash's
// exit status.
func runFailingAgentScript(t *testing.T, flags []string, script string) int {
	t.Helper()
	bin := t.TempDir()
	for _, name := range []string{"cursor-otel", "cursor-agent"} { // cursor-otel, by either name
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\necho '{\"type\":\"result\"}'\nexit 3\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", append(flags, "-c", script)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append([]string{"PATH=" + bin + ":/usr/bin:/bin", "GITHUB_STEP_SUMMARY=" + filepath.Join(cmd.Dir, "summary.md")}, cover.env...)
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// The snippet that installs cursor-otel as cursor-agent makes a link in a
// directory of its own that runs the real agent behind it, never replaces
// the real agent's link (Cursor's installer puts it in ~/.local/bin), and
// running it twice is running it once.
func TestUseAsCursorAgentSnippet(t *testing.T) {
	home := t.TempDir()
	realLink := filepath.Join(home, ".local", "bin", "cursor-agent")
	if err := os.MkdirAll(filepath.Dir(realLink), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fakeAgent, realLink); err != nil {
		t.Fatal(err)
	}
	install := func(args ...string) (string, error) {
		cmd := exec.Command("sh", append([]string{"examples/use-as-cursor-agent.sh"}, args...)...)
		cmd.Env = append([]string{"HOME=" + home, "PATH=/usr/bin:/bin"}, cover.env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for range 2 {
		if out, err := install(binary); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	link := filepath.Join(home, ".cursor-otel", "bin", "cursor-agent")
	if target, err := os.Readlink(link); err != nil || target != binary {
		t.Fatalf("%s -> %q (%v), want %s", link, target, err, binary)
	}
	if target, _ := os.Readlink(realLink); target != fakeAgent {
		t.Errorf("the real agent's link now points to %q", target)
	}
	// Asked to install where the real agent's link is, it refuses.
	if out, err := install(binary, filepath.Dir(realLink)); err == nil || !strings.Contains(out, "left alone") {
		t.Errorf("installing over the real agent: %v, %q; want a refusal", err, out)
	}
	if target, _ := os.Readlink(realLink); target != fakeAgent {
		t.Errorf("the real agent's link now points to %q", target)
	}
	r := runCommand(t, link, []string{"PATH=" + filepath.Dir(link) + ":" + filepath.Dir(realLink), "OTEL_TRACES_EXPORTER=none"}, nil, "status")
	if r.stdout != "fakeagent status\n" || r.exit != 0 {
		t.Errorf("through the link: stdout %q, exit %d", r.stdout, r.exit)
	}
}

// What Jaeger needs to show the GenAI tab and classify spans as agent, LLM
// call or tool call, on every span of every example.
func TestJaegerSeesGenAI(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	paths, _ := filepath.Glob("examples/*.ndjson")
	if r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint}, nil, append([]string{"replay", "--quiet"}, paths...)...); r.exit != 0 {
		t.Fatalf("exit %d: %s", r.exit, r.stderr)
	}
	want := map[string]struct {
		kind  string
		attrs []string
	}{
		"invoke_agent": {"client", []string{"gen_ai.provider.name", "gen_ai.agent.name", "gen_ai.request.model", "gen_ai.conversation.id", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"}},
		"chat":         {"client", []string{"gen_ai.provider.name", "gen_ai.request.model", "gen_ai.agent.name", "gen_ai.conversation.id"}},
		"execute_tool": {"internal", []string{"gen_ai.tool.name", "gen_ai.tool.call.id", "gen_ai.tool.type", "gen_ai.agent.name", "gen_ai.conversation.id"}},
	}
	spans := golden.FromOTLP(recv.Spans())
	perTrace := map[string]int{}
	events := map[string]int{}
	for _, s := range spans {
		perTrace[s.TraceID]++
		op := value(s, "gen_ai.operation.name")
		w, ok := want[op]
		if !ok {
			t.Errorf("%s: gen_ai.operation.name %q", s.Name, op)
			continue
		}
		if !strings.HasPrefix(s.Name, op+" ") || s.Kind != w.kind {
			t.Errorf("%s (%s): want name %q… and kind %s", s.Name, s.Kind, op, w.kind)
		}
		for _, a := range w.attrs {
			// Token usage comes with the result; the failed run has none.
			if value(s, a) == "" && !(strings.HasPrefix(a, "gen_ai.usage.") && s.Status == "Error") {
				t.Errorf("%s: no %s", s.Name, a)
			}
		}
		if value(s, "cursor.tool.outcome") == "error" && s.Status != "Error" {
			t.Errorf("%s: a failed tool without status ERROR (Jaeger's error=true)", s.Name)
		}
		for _, e := range s.Events {
			events[e.Name]++
		}
	}
	if events["cursor.thinking"] == 0 || events["cursor.connection"] == 0 || events["cursor.retry"] == 0 || events["cursor.error"] == 0 {
		t.Errorf("span events %v: want thinking, connection, retry and error events (Jaeger's logs)", events)
	}
	var counts []int
	for _, n := range perTrace {
		counts = append(counts, n)
	}
	slices.Sort(counts)
	if !slices.Equal(counts, []int{5, 6, 11}) {
		t.Errorf("spans per trace %v, want 5, 6 and 11", counts)
	}
}

// The compare workflow: on a pull request it fetches main's baseline,
// compares, puts the table on the summary page and in a comment, and
// fails the step when compare says a threshold was crossed.
func TestCompareWorkflow(t *testing.T) {
	var gh struct {
		Jobs map[string]struct {
			Steps []struct {
				Name  string            `yaml:"name"`
				Run   string            `yaml:"run"`
				Shell string            `yaml:"shell"`
				Env   map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	readYAML(t, "examples/github-actions-compare.yml", &gh)
	var script string
	for _, s := range gh.Jobs["agent"].Steps {
		if s.Name == "Compare with main" && s.Shell == "bash" {
			script = s.Run
		}
	}
	if script == "" {
		t.Fatal("no Compare with main step")
	}
	for _, compareStatus := range []int{0, 1} {
		bin, dir := t.TempDir(), t.TempDir()
		stub := func(name, body string) {
			if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		stub("cursor-otel", fmt.Sprintf("echo '| wall time | 1s | 2s |'\nexit %d\n", compareStatus))
		stub("gh", `echo "gh $*" >> "$GH_LOG"
case "$1 $2" in
"run list") echo 42 ;;
"run download") mkdir -p baseline && : > baseline/agent-summary.jsonl ;;
esac
`)
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
		cmd.Dir = dir
		summary, log := filepath.Join(dir, "summary.md"), filepath.Join(dir, "gh.log")
		cmd.Env = append([]string{"PATH=" + bin + ":/usr/bin:/bin", "GITHUB_STEP_SUMMARY=" + summary, "GH_LOG=" + log, "PR=7"}, cover.env...)
		out, err := cmd.CombinedOutput()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		}
		s, _ := os.ReadFile(summary)
		calls, _ := os.ReadFile(log)
		if code != compareStatus || !strings.Contains(string(s), "| wall time | 1s | 2s |") ||
			!strings.Contains(string(calls), "gh pr comment 7 --body-file comment.md") || !strings.Contains(string(calls), "gh run download 42 --name agent-baseline") {
			t.Errorf("compare exiting %d: step exit %d, summary %q, gh calls %q, output %s", compareStatus, code, s, calls, out)
		}
		if annotated := strings.Contains(string(out), "::error title=Agent regression::"); annotated != (compareStatus == 1) {
			t.Errorf("compare exiting %d: annotation %v", compareStatus, annotated)
		}
	}
}
