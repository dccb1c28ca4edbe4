package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// wrapOnly are flags of wrap mode that no other command takes.
var wrapOnly = []string{"--agent", "--stall-timeout"}

// Each command's --help shows its own flags and no others; the
// program's lists every command, acp included, and wrap mode's flags.
func TestHelpIsEachCommands(t *testing.T) {
	for _, tt := range []struct {
		args     []string
		has, not []string
	}{
		{[]string{"--help"}, []string{"Usage: cursor-otel [flags] [--] [cursor-agent args...]", "--stall-timeout", "--agent",
			"--summary-json", "acp", "replay [<file> ...]", "version", "compare <base> <new>", "hook [flags]",
			"hooks install", "hooks uninstall", "flush [flags]"}, nil},
		{[]string{"-h"}, []string{"acp", "--stall-timeout"}, nil},
		{[]string{"version", "--help"}, []string{"Usage: cursor-otel version"}, append([]string{"--summary", "--quiet"}, wrapOnly...)},
		{[]string{"replay", "--help"}, []string{"Usage: cursor-otel replay", "--now", "--summary", "--quiet", "--max-budget-usd"}, wrapOnly},
		{[]string{"compare", "--help"}, []string{"--fail-if", "--prices", "--stall-threshold"}, append([]string{"--summary", "--quiet"}, wrapOnly...)},
		{[]string{"flush", "--help"}, []string{"--redirect", "--flush-timeout"}, append([]string{"--summary", "--capture-content"}, wrapOnly...)},
		{[]string{"hook", "--help"}, []string{"--capture-content", "--summary-json"}, append([]string{"--quiet", "--prices"}, wrapOnly...)},
		{[]string{"hooks", "install", "--help"}, []string{"--project", "--capture-content", "--summary-json", "--trace-url"}, append([]string{"--quiet"}, wrapOnly...)},
		{[]string{"hooks", "uninstall", "--help"}, []string{"--project"}, append([]string{"--summary"}, wrapOnly...)},
	} {
		r := runBinary(t, nil, nil, tt.args...)
		if r.exit != 0 || r.stderr != "" {
			t.Errorf("%q: exit %d, stderr %q", tt.args, r.exit, r.stderr)
		}
		for _, s := range tt.has {
			if !strings.Contains(r.stdout, s) {
				t.Errorf("%q does not show %q:\n%s", tt.args, s, r.stdout)
			}
		}
		for _, s := range tt.not {
			if strings.Contains(r.stdout, s+" ") || strings.Contains(r.stdout, s+"=") {
				t.Errorf("%q shows %s, which is not its flag", tt.args, s)
			}
		}
	}
}

// A flag of wrap mode given to another command is refused: exit 2, one
// line naming it, nothing run.
func TestWrapFlagsRefusedBySubcommands(t *testing.T) {
	for _, args := range [][]string{
		{"version", "--stall-timeout", "5s"},
		{"--stall-timeout", "5s", "version"},
		{"flush", "--agent", "x"},
		{"replay", "--stall-timeout=5s", "examples/failed-run.ndjson"},
		{"compare", "--quiet", "a.jsonl", "b.jsonl"},
		{"hooks", "install", "--quiet"},
		{"hook", "--agent", "x"},
	} {
		r := runBinary(t, []string{"HOME=" + t.TempDir()}, strings.NewReader("{}\n"), args...)
		flag := ""
		for _, a := range args {
			if strings.HasPrefix(a, "--") {
				flag, _, _ = strings.Cut(a, "=")
			}
		}
		if r.exit != 2 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "takes no "+flag+": it is a flag of wrap mode") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and one line naming %s as wrap mode's", args, r.exit, r.stdout, r.stderr, flag)
		}
	}
	// What a command takes, before it or after it, still works.
	r := runBinary(t, []string{"OTEL_TRACES_EXPORTER=none"}, nil, "--quiet", "replay", "examples/failed-run.ndjson")
	if r.exit != 0 || r.stdout != "" {
		t.Errorf("--quiet replay: exit %d, stdout %q, stderr %q", r.exit, r.stdout, r.stderr)
	}
}

// With no cursor-agent found, what a newcomer types first gets the
// error and the usage, or the command meant; with one found, the same
// words go to it unchanged.
func TestNoAgentGetsUsage(t *testing.T) {
	empty := []string{"PATH=" + t.TempDir()}
	for _, args := range [][]string{nil, {"help"}} {
		r := runBinary(t, empty, nil, args...)
		if r.exit != 127 || r.stdout != "" || !strings.HasPrefix(r.stderr, "cursor-otel: no cursor-agent or agent on PATH") ||
			!strings.Contains(r.stderr, "Usage: cursor-otel") || !strings.Contains(r.stderr, "acp") || !strings.Contains(r.stderr, "replay") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 127, the error and the usage", args, r.exit, r.stdout, r.stderr)
		}
	}
	for _, tt := range []struct {
		args  []string
		hint  string
		lines int
	}{
		{[]string{"repaly", "x.ndjson"}, "; did you mean replay? (see cursor-otel --help)", 1},
		{[]string{"flsuh"}, "; did you mean flush?", 1},
		{[]string{"-p", "hi"}, "", 1},
		{[]string{"ls"}, "", 1},
	} {
		r := runBinary(t, empty, nil, tt.args...)
		if r.exit != 127 || strings.Count(r.stderr, "\n") != tt.lines || tt.hint != "" && !strings.Contains(r.stderr, tt.hint) ||
			tt.hint == "" && strings.Contains(r.stderr, "did you mean") {
			t.Errorf("%q: exit %d, stderr %q; want 127 and one line, hint %q", tt.args, r.exit, r.stderr, tt.hint)
		}
	}
	for _, args := range [][]string{{"help"}, {"repaly", "x.ndjson"}, {"hlep"}} {
		runs := filepath.Join(t.TempDir(), "runs")
		// Untraced and not rewritten: the agent's arguments as given.
		r := runBinary(t, []string{"CURSOR_OTEL_AGENT=" + fakeAgent, "FAKEAGENT_RUNS=" + runs, "CURSOR_OTEL_REWRITE=off", "OTEL_TRACES_EXPORTER=none"}, nil, args...)
		b, _ := os.ReadFile(runs)
		if want := `["` + strings.Join(args, `","`) + `"]`; r.exit != 0 || strings.TrimSpace(string(b)) != want || r.stderr != "" {
			t.Errorf("%q with an agent: exit %d, stderr %q, the agent ran with %s; want it run with %s", args, r.exit, r.stderr, b, want)
		}
	}
}

// hooks install writes the capture and report flags into the hook's
// command, the files made absolute; Cursor runs that command from another
// directory, and the turns it records are built with them, whoever
// builds them (here the hook's background delivery, which has no such
// setting). uninstall knows the entries. What a hook cannot take is
// refused.
func TestHooksInstallWritesItsFlags(t *testing.T) {
	t.Parallel() // waits on the hooks' grace and the delivery's timers, not the CPU
	home, work := t.TempDir(), t.TempDir()
	install := exec.Command(binary, "hooks", "install", "--summary-json", "runs.jsonl", "--capture-content")
	install.Env, install.Dir = withBaseEnv(t, []string{"HOME=" + home}), work
	r := runStarted(t, install, func() {
		if err := install.Start(); err != nil {
			t.Fatal(err)
		}
	})
	hooksJSON := filepath.Join(home, ".cursor", "hooks.json")
	b, err := os.ReadFile(hooksJSON)
	command := binary + " hook --capture-content --summary-json=" + filepath.Join(work, "runs.jsonl")
	if r.exit != 0 || err != nil || strings.Count(string(b), command) != 12 || !strings.Contains(r.stdout, "run as "+command) {
		t.Fatalf("install: exit %d, %q %q; hooks.json %s; want each of 12 entries to run %s", r.exit, r.stdout, r.stderr, b, command)
	}

	recv := otlptest.StartGRPC(t)
	state := t.TempDir()
	t.Cleanup(func() { waitForDeliverer(state) })
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_STATE_DIR=" + state, "OTEL_METRICS_EXPORTER=none"}
	for _, line := range hookEvents(t) {
		if r := runCommand(t, "/bin/sh", env, strings.NewReader(line+"\n"), "-c", command); r.exit != 0 || r.stderr != "" {
			t.Errorf("the installed hook: exit %d, stderr %q", r.exit, r.stderr)
		}
	}
	spans := waitForSpans(t, recv, 7, 15*time.Second)
	if len(spans) != 7 {
		t.Errorf("%d spans: %v; want the 7 of the conversation's 2 turns", len(spans), spanNames(spans))
	}
	prompts := 0
	for _, s := range spans {
		if strings.Contains(value(s, "gen_ai.input.messages"), "The queue tests fail") {
			prompts++
		}
	}
	if prompts != 1 {
		t.Errorf("%d spans carry the first prompt; want its chat span, content captured as the hook's flag says", prompts)
	}
	deadline := time.Now().Add(10 * time.Second)
	for lines := 0; lines < 2 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(work, "runs.jsonl"))
		lines = strings.Count(string(b), "\n")
	}
	if b, _ := os.ReadFile(filepath.Join(work, "runs.jsonl")); strings.Count(string(b), "\n") != 2 {
		t.Errorf("runs.jsonl beside where install ran holds %q; want a report a turn", b)
	}

	if r := runBinary(t, []string{"HOME=" + home}, nil, "hooks", "uninstall"); r.exit != 0 || !strings.Contains(r.stdout, "removed from") {
		t.Errorf("uninstall: exit %d %q %q", r.exit, r.stdout, r.stderr)
	}
	if _, err := os.Stat(hooksJSON); err == nil {
		t.Errorf("hooks.json is left after uninstall, though there was none")
	}

	for _, args := range [][]string{{"--trace-url", "http://jaeger:16686/"}, {"--capture-content=maybe"}, {"--summary", "$GITHUB_STEP_SUMMARY"}} {
		r := runBinary(t, []string{"HOME=" + home}, nil, append([]string{"hooks", "install"}, args...)...)
		if _, err := os.Stat(hooksJSON); r.exit != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "cursor-otel: hooks install: ") || err == nil {
			t.Errorf("install %q: exit %d, stderr %q, hooks.json written: %v; want 2, one line, nothing written", args, r.exit, r.stderr, err == nil)
		}
	}
}

// An endpoint whose :// was mistyped is named as such; the agent runs,
// untraced.
func TestEndpointMissingItsScheme(t *testing.T) {
	stream, _ := os.ReadFile("examples/failed-run.ndjson")
	r := runBinary(t, []string{"CURSOR_OTEL_AGENT=" + fakeAgent, "OTEL_EXPORTER_OTLP_ENDPOINT=http//collector:4317",
		"FAKEAGENT_STREAM=examples/failed-run.ndjson", "FAKEAGENT_SPEED=1000000"}, nil, streamArgs("fix it")...)
	want := `cursor-otel: OTEL_EXPORTER_OTLP_ENDPOINT: "http//collector:4317" is missing :// after the scheme: ` +
		"write http://collector:4317 for plaintext or https://collector:4317 for TLS; running cursor-agent untraced\n"
	if r.exit != 0 || r.stdout != string(stream) || r.stderr != want {
		t.Errorf("exit %d, stdout the agent's: %v, stderr %q; want %q", r.exit, r.stdout == string(stream), r.stderr, want)
	}
}

// A malformed budget stops the run before the agent starts: exit 2, one
// line, the agent never run, whatever else is set and however
// cursor-otel is called.
func TestMalformedBudgetStopsTheRun(t *testing.T) {
	d := installDropIn(t)
	for _, tt := range []struct {
		name    string
		env     []string
		args    []string
		dropIn  bool
		setting string
	}{
		{"env", []string{"CURSOR_OTEL_MAX_BUDGET_USD=abc"}, streamArgs("fix it"), false, `CURSOR_OTEL_MAX_BUDGET_USD="abc"`},
		{"negative", []string{"CURSOR_OTEL_MAX_BUDGET_USD=-1"}, streamArgs("fix it"), false, `CURSOR_OTEL_MAX_BUDGET_USD="-1"`},
		{"NaN, quiet", []string{"CURSOR_OTEL_MAX_BUDGET_USD=NaN", "CURSOR_OTEL_QUIET=1"}, streamArgs("fix it"), false, `CURSOR_OTEL_MAX_BUDGET_USD="NaN"`},
		{"flag", nil, append([]string{"--max-budget-usd", "abc", "--"}, streamArgs("fix it")...), false, `--max-budget-usd "abc"`},
		{"beside another wrong setting", []string{"CURSOR_OTEL_MAX_BUDGET_USD=1,50", "CURSOR_OTEL_FLUSH_TIMEOUT=5x"}, streamArgs("fix it"), false, `CURSOR_OTEL_MAX_BUDGET_USD="1,50"`},
		{"interactive subcommand", []string{"CURSOR_OTEL_MAX_BUDGET_USD=abc"}, []string{"status"}, false, `CURSOR_OTEL_MAX_BUDGET_USD="abc"`},
		{"installed as cursor-agent", []string{"CURSOR_OTEL_MAX_BUDGET_USD=abc"}, streamArgs("fix it"), true, `CURSOR_OTEL_MAX_BUDGET_USD="abc"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runs := filepath.Join(t.TempDir(), "runs")
			env := append([]string{"FAKEAGENT_RUNS=" + runs, "FAKEAGENT_STREAM=examples/failed-run.ndjson", "OTEL_TRACES_EXPORTER=none"}, tt.env...)
			var r result
			if tt.dropIn {
				r = d.run(t, env, tt.args...)
			} else {
				r = runBinary(t, append(env, "CURSOR_OTEL_AGENT="+fakeAgent), nil, tt.args...)
			}
			_, ran := os.Stat(runs)
			if r.exit != 2 || r.stdout != "" || ran == nil || strings.Count(r.stderr, "\n") != 1 ||
				!strings.HasPrefix(r.stderr, "cursor-otel: "+tt.setting+": not an amount of US dollars above zero") ||
				!strings.HasSuffix(r.stderr, "cursor-agent not started: a budget is a guard\n") {
				t.Errorf("exit %d, stdout %q, agent ran: %v, stderr %q; want 2, one line, the agent not run", r.exit, r.stdout, ran == nil, r.stderr)
			}
		})
	}
}
