package wrap

import (
	"context"
	"errors"
	"fmt"
	"github.com/cursor-otel/cursor-otel/internal/ostext"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/agent"
	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/settings"
)

// fakeAgent is the stand-in agent, built from test/fakeagent.
var fakeAgent string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wrap-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// CURSOR_OTEL_TEST_FAKEAGENT is one built already: where the tests run
	// without a Go toolchain (Windows under Wine).
	fakeAgent = os.Getenv("CURSOR_OTEL_TEST_FAKEAGENT")
	if fakeAgent == "" {
		fakeAgent = filepath.Join(dir, "fakeagent")
		if out, err := exec.Command("go", "build", "-o", fakeAgent, "../../../test/fakeagent").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build the stand-in agent: %v\n%s", err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run is one in-process run of wrap mode.
type run struct {
	exit           int
	stdout, stderr string
	spans          []golden.Span
	execd          *execCall // the agent exec'd instead of traced
}

type execCall struct {
	path      string
	args, env []string
}

var errExecd = errors.New("exec'd (test)")

// runWrap runs Run with the environment given (the stand-in agent named),
// stdout and stderr in files, and a gRPC receiver as the collector.
func runWrap(t *testing.T, s settings.Settings, problems error, env []string, args ...string) run {
	t.Helper()
	recv := otlptest.StartGRPC(t)
	// The OTLP exporter reads the endpoint from the process environment.
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.Endpoint)
	dir := t.TempDir()
	files := map[string]*os.File{}
	for _, name := range []string{"stdin", "stdout", "stderr"} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		files[name] = f
	}
	var r run
	if s.FlushTimeout == 0 {
		s.FlushTimeout = settings.DefaultFlushTimeout
	}
	s.Rewrite = true
	environ := append([]string{"PATH=/usr/bin:/bin", "OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint}, env...)
	if s.Agent == "" {
		s.Agent = fakeAgent
	}
	r.exit = Run(context.Background(), Config{
		Settings: s, Problems: problems, Args: args, Environ: environ,
		Stdin: files["stdin"], Stdout: files["stdout"], Stderr: files["stderr"],
		Exec: func(path string, args, env []string) error {
			r.execd = &execCall{path, args, env}
			return errExecd
		},
	})
	for name, dst := range map[string]*string{"stdout": &r.stdout, "stderr": &r.stderr} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		*dst = string(b)
	}
	r.spans = golden.FromOTLP(recv.Spans())
	return r
}

func TestRunTracesAStream(t *testing.T) {
	want, _ := os.ReadFile("../../../examples/fix-failing-test.ndjson")
	r := runWrap(t, settings.Settings{}, nil, []string{"FAKEAGENT_STREAM=../../../examples/fix-failing-test.ndjson", "FAKEAGENT_SPEED=1000000", "FAKEAGENT_EXIT=4"},
		"-p", "--output-format", "stream-json", "fix it")
	if r.exit != 4 || r.stdout != string(want) || r.stderr != "" || r.execd != nil {
		t.Errorf("exit %d, stdout the agent's: %v, stderr %q, exec'd %v", r.exit, r.stdout == string(want), r.stderr, r.execd)
	}
	if len(r.spans) != 11 {
		t.Errorf("%d spans, want 11", len(r.spans))
	}
}

// What is not traced is exec'd, with the arguments as given and the
// environment one level deeper; a wrong setting says so in one line.
func TestRunExecsWhatIsNotTraced(t *testing.T) {
	for _, tt := range []struct {
		name     string
		args     []string
		problems error
		quiet    bool
		stderr   string
	}{
		{"a subcommand", []string{"status"}, nil, false, ""},
		{"--version", []string{"--version"}, nil, false, ""},
		{"a wrong setting", []string{"-p", "hi"}, settings.Problems{errors.New(`CURSOR_OTEL_FLUSH_TIMEOUT="5x": not a duration`)}, false,
			`cursor-otel: CURSOR_OTEL_FLUSH_TIMEOUT="5x": not a duration; running cursor-agent untraced` + "\n"},
		{"a wrong setting, --quiet", []string{"-p", "hi"}, settings.Problems{errors.New("wrong")}, true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := runWrap(t, settings.Settings{Quiet: tt.quiet}, tt.problems, []string{"CURSOR_OTEL_DEPTH=2"}, tt.args...)
			if r.execd == nil || r.execd.path != fakeAgent || !slices.Equal(r.execd.args, tt.args) || !slices.Contains(r.execd.env, "CURSOR_OTEL_DEPTH=3") {
				t.Fatalf("exec'd %+v; want the agent, the arguments as given, CURSOR_OTEL_DEPTH=3", r.execd)
			}
			if want := tt.stderr + "cursor-otel: exec'd (test)\n"; r.stderr != want || len(r.spans) != 0 {
				t.Errorf("stderr %q, %d spans; want %q and none", r.stderr, len(r.spans), want)
			}
		})
	}
}

func TestRunStopsAChain(t *testing.T) {
	r := runWrap(t, settings.Settings{}, nil, []string{"CURSOR_OTEL_DEPTH=8"}, "-p", "hi")
	if r.exit != statusNotFound || r.execd != nil || !strings.Contains(r.stderr, "cursor-otel is running itself as cursor-agent, 8 deep") {
		t.Errorf("exit %d, stderr %q, exec'd %v", r.exit, r.stderr, r.execd)
	}
}

func TestRunWithoutAnAgent(t *testing.T) {
	r := runWrap(t, settings.Settings{Agent: filepath.Join(t.TempDir(), "nope")}, nil, nil, "-p", "hi")
	if r.exit != statusNotFound || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "nope: "+ostext.Missing("nope")) {
		t.Errorf("exit %d, stderr %q", r.exit, r.stderr)
	}
}

// A json or text run is run as stream-json and rendered, keeping what the
// agent printed that is not an event.
func TestRunRendersWhatTheUserAskedFor(t *testing.T) {
	stream := filepath.Join(t.TempDir(), "s.ndjson")
	os.WriteFile(stream, []byte("Warning: update available\n"+
		`{"type":"system","subtype":"init","session_id":"s","model":"Auto"}`+"\n"+
		`{"type":"result","subtype":"success","is_error":false,"result":"All done.","session_id":"s"}`+"\n"), 0o644)
	for format, want := range map[string]string{
		"text": "Warning: update available\nAll done.\n",
		"json": "Warning: update available\n" + `{"type":"result","subtype":"success","is_error":false,"result":"All done.","session_id":"s"}` + "\n",
	} {
		r := runWrap(t, settings.Settings{}, nil, []string{"FAKEAGENT_STREAM=" + stream}, "-p", "--output-format", format, "hi")
		if r.stdout != want || r.exit != 0 || len(r.spans) != 1 {
			t.Errorf("%s: stdout %q, exit %d, %d spans; want %q, 0, the session span", format, r.stdout, r.exit, len(r.spans), want)
		}
	}
}

// An agent that cannot be started: one line, 126, a session that says so.
func TestRunCannotStartTheAgent(t *testing.T) {
	notExecutable := filepath.Join(t.TempDir(), "cursor-agent")
	os.WriteFile(notExecutable, []byte("not a program"), 0o755)
	r := runWrap(t, settings.Settings{Agent: notExecutable}, nil, nil, "-p", "--output-format", "stream-json", "hi")
	if r.exit != statusCannotRun || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "start "+notExecutable) {
		t.Errorf("exit %d, stderr %q", r.exit, r.stderr)
	}
	if len(r.spans) != 1 || r.spans[0].Status != "Error" {
		t.Errorf("spans %+v; want the session, failed", r.spans)
	}
}

func TestCommandLine(t *testing.T) {
	args := []string{"-p", "two words", "", `it's`, "--model", "gpt-5"}
	if got, want := commandLineWith(posixQuote, "/usr/bin/cursor-agent", args, nil), `/usr/bin/cursor-agent -p "two words" "" "it's" --model gpt-5`; got != want {
		t.Errorf("commandLine = %s, want %s", got, want)
	}
	if got, want := commandLineWith(posixQuote, "/usr/bin/cursor-agent", args, []int{1, 2, 3}), `/usr/bin/cursor-agent -p <prompt: 9 bytes> <prompt: 0 bytes> <prompt: 4 bytes> --model gpt-5`; got != want {
		t.Errorf("commandLine = %s, want %s", got, want)
	}
	// On Windows: its quoting, the path's backslashes as they are.
	winArgs := []string{"-p", `fix C:\src\a b\`, `say "hi"`, "--workspace", `D:\work`}
	if got, want := commandLineWith(agent.WindowsArg, `C:\Users\Ada Lovelace\AppData\Local\cursor-agent\cursor-agent.cmd`, winArgs, nil),
		`"C:\Users\Ada Lovelace\AppData\Local\cursor-agent\cursor-agent.cmd" -p "fix C:\src\a b\\" "say \"hi\"" --workspace D:\work`; got != want {
		t.Errorf("commandLine = %s, want %s", got, want)
	}
	if got, want := commandLineWith(agent.WindowsArg, `C:\tools\cursor-agent.exe`, winArgs, []int{1, 2}), `C:\tools\cursor-agent.exe -p <prompt: 15 bytes> <prompt: 8 bytes> --workspace D:\work`; got != want {
		t.Errorf("commandLine = %s, want %s", got, want)
	}
}

// A malformed budget stops the run before the agent starts, even with
// --quiet and beside other wrong settings: running without the guard would
// spend what the user meant to cap.
func TestRunStopsOnAMalformedBudget(t *testing.T) {
	_, problems := settings.Load(settings.Flags{}, func(name string) string {
		return map[string]string{"CURSOR_OTEL_MAX_BUDGET_USD": "abc", "CURSOR_OTEL_FLUSH_TIMEOUT": "5x"}[name]
	})
	r := runWrap(t, settings.Settings{Quiet: true}, problems, nil, "-p", "hi")
	want := `cursor-otel: CURSOR_OTEL_MAX_BUDGET_USD="abc": not an amount of US dollars above zero: write e.g. 1.50; cursor-agent not started: a budget is a guard` + "\n"
	if r.exit != 2 || r.execd != nil || r.stderr != want || r.stdout != "" {
		t.Errorf("exit %d, exec'd %+v, stderr %q, stdout %q; want 2, not run, %q", r.exit, r.execd, r.stderr, r.stdout, want)
	}
}
