package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/lag"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// fakeAgent is the stand-in agent built from test/fakeagent.
var fakeAgent string

func buildFakeAgent(dir string) error {
	fakeAgent = filepath.Join(dir, "fakeagent")
	out, err := exec.Command("go", "build", "-o", fakeAgent, "./test/fakeagent").CombinedOutput()
	if err != nil {
		return fmt.Errorf("build fakeagent: %v\n%s", err, out)
	}
	fakeACP = filepath.Join(dir, "fakeacp")
	if out, err := exec.Command("go", "build", "-o", fakeACP, "./test/fakeacp").CombinedOutput(); err != nil {
		return fmt.Errorf("build fakeacp: %v\n%s", err, out)
	}
	return nil
}

// fakeRecord is what the stand-in agent saw.
type fakeRecord struct {
	Args  []string          `json:"args"`
	Stdin string            `json:"stdin"`
	Env   map[string]string `json:"env"`
}

// wrapped is one run of cursor-otel in front of the stand-in agent.
type wrapped struct {
	result
	record fakeRecord
	spans  []golden.Span
}

// wrapSpec says how to run it.
type wrapSpec struct {
	args     []string
	env      []string // more environment, FAKEAGENT_* among it
	stdin    io.Reader
	binary   string // default: the built cursor-otel
	noAgent  bool   // do not name the agent with CURSOR_OTEL_AGENT
	endpoint string // default: a gRPC receiver started for the run
}

func runWrapped(t *testing.T, w wrapSpec) wrapped {
	t.Helper()
	var recv *otlptest.Receiver
	if w.endpoint == "" {
		recv = otlptest.StartGRPC(t)
		w.endpoint = recv.Endpoint
	}
	record := filepath.Join(t.TempDir(), "record.json")
	env := append([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + w.endpoint, "FAKEAGENT_RECORD=" + record}, w.env...)
	if !w.noAgent {
		env = append(env, "CURSOR_OTEL_AGENT="+fakeAgent)
	}
	bin := binary
	if w.binary != "" {
		bin = w.binary
	}
	r := runCommand(t, bin, env, w.stdin, w.args...)
	out := wrapped{result: r}
	if b, err := os.ReadFile(record); err == nil {
		if err := json.Unmarshal(b, &out.record); err != nil {
			t.Fatalf("read the stand-in's record: %v", err)
		}
	}
	if recv != nil {
		out.spans = golden.FromOTLP(recv.Spans())
	}
	return out
}

// runCommand runs a program with only the environment given (and PATH,
// HOME unless given).
func runCommand(t testing.TB, bin string, env []string, stdin io.Reader, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = withBaseEnv(t, env)
	cmd.Stdin = stdin
	return runStarted(t, cmd, func() {
		if err := cmd.Start(); err != nil {
			t.Fatalf("run %s: %v", bin, err)
		}
	})
}

// runStarted runs cmd, started by start, to its end: what it wrote, its
// exit status and how long it took.
func runStarted(t testing.TB, cmd *exec.Cmd, start func()) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	start()
	err := cmd.Wait()
	r := result{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(began)}
	if exit, ok := err.(*exec.ExitError); ok {
		r.exit = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s: %v", cmd.Path, err)
	}
	return r
}

// withBaseEnv is env over a PATH and a HOME of the test's own, with the
// spool off: a test of the spool names one.
func withBaseEnv(t testing.TB, env []string) []string {
	base := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "CURSOR_OTEL_SPOOL=off"}, cover.env...)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		base = slices.DeleteFunc(base, func(b string) bool { return strings.HasPrefix(b, k+"=") })
	}
	return append(base, env...)
}

func sessionSpan(t *testing.T, spans []golden.Span) golden.Span {
	t.Helper()
	for _, s := range spans {
		if s.Name == "invoke_agent cursor-agent" {
			return s
		}
	}
	t.Fatalf("no session span among %d spans", len(spans))
	return golden.Span{}
}

// value returns an attribute's value, unquoted when it is a string.
func value(s golden.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			if v, err := strconv.Unquote(kv.Value); err == nil {
				return v
			}
			return kv.Value
		}
	}
	return ""
}

func spanNames(spans []golden.Span) []string {
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
	}
	sort.Strings(names)
	return names
}

func streamArgs(extra ...string) []string {
	return append([]string{"-p", "--output-format", "stream-json"}, extra...)
}

func TestWrap(t *testing.T) {
	fix, err := os.ReadFile("examples/fix-failing-test.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	fixResultLine := `{"type":"result","subtype":"success","duration_ms":31200,"duration_api_ms":31200,"is_error":false,"result":"I'll run the failing package's tests first.Drain stops one item early: the loop bound is ` + "`i < q.len-1`" + `. Fixing it.Fixed the off-by-one in Queue.Drain (pkg/queue/queue.go:123); go test ./pkg/queue passes.","session_id":"7f3c9a1e-5b2d-4c8e-9f10-2a6b3c4d5e6f","request_id":"c0ffee00-1234-4abc-8def-0123456789ab","usage":{"inputTokens":48210,"outputTokens":1876,"cacheReadTokens":39002,"cacheWriteTokens":6120}}`
	fixResultText := "I'll run the failing package's tests first.Drain stops one item early: the loop bound is `i < q.len-1`. Fixing it.Fixed the off-by-one in Queue.Drain (pkg/queue/queue.go:123); go test ./pkg/queue passes."
	const stream = "FAKEAGENT_STREAM=examples/fix-failing-test.ndjson"

	tests := []struct {
		name  string
		spec  wrapSpec
		check func(t *testing.T, w wrapped)
	}{
		{
			name: "stream-json passes through and is traced",
			spec: wrapSpec{args: streamArgs("fix the test"), env: []string{stream}},
			check: func(t *testing.T, w wrapped) {
				if w.stdout != string(fix) || w.exit != 0 || w.stderr != "" {
					t.Errorf("stdout same as the agent's: %v; exit %d; stderr %q", w.stdout == string(fix), w.exit, w.stderr)
				}
				if len(w.spans) != 11 {
					t.Errorf("%d spans, want 11: %v", len(w.spans), spanNames(w.spans))
				}
				s := sessionSpan(t, w.spans)
				if value(s, "process.exit.code") != "0" || s.Status == "Error" || value(s, "cursor.output_format") != "stream-json" {
					t.Errorf("session: exit %q, status %s %q, format %q", value(s, "process.exit.code"), s.Status, s.StatusMessage, value(s, "cursor.output_format"))
				}
				if got := value(s, "process.command_line"); got != fakeAgent+` -p --output-format stream-json <prompt: 12 bytes>` {
					t.Errorf("command line %q", got)
				}
			},
		},
		{
			name: "arguments reach the agent unchanged and in order",
			spec: wrapSpec{args: streamArgs("", "two words", "line\nbreak", "ünïcödé ✓", "--", "--model", "--capture-content", "-")},
			check: func(t *testing.T, w wrapped) {
				want := streamArgs("", "two words", "line\nbreak", "ünïcödé ✓", "--", "--model", "--capture-content", "-")
				if !slices.Equal(w.record.Args, want) {
					t.Errorf("the agent got %q, want %q", w.record.Args, want)
				}
			},
		},
		{
			name: "cursor-otel's flags come first; -- starts the agent's",
			spec: wrapSpec{args: append([]string{"--capture-content", "--flush-timeout", "2s", "--"}, streamArgs("--quiet")...), env: []string{stream}},
			check: func(t *testing.T, w wrapped) {
				if want := streamArgs("--quiet"); !slices.Equal(w.record.Args, want) {
					t.Errorf("the agent got %q, want %q", w.record.Args, want)
				}
				if value(sessionSpan(t, w.spans), "gen_ai.input.messages") == "" {
					t.Errorf("--capture-content was not taken by cursor-otel")
				}
			},
		},
		{
			name: "the first argument that is not cursor-otel's ends its flags",
			spec: wrapSpec{args: []string{"--quiet", "-p", "--capture-content", "--output-format", "stream-json"}},
			check: func(t *testing.T, w wrapped) {
				if want := []string{"-p", "--capture-content", "--output-format", "stream-json"}; !slices.Equal(w.record.Args, want) {
					t.Errorf("the agent got %q, want %q", w.record.Args, want)
				}
			},
		},
		{
			name: "a piped prompt reaches the agent's stdin",
			spec: wrapSpec{args: streamArgs(), stdin: strings.NewReader("Fix the build.\nIt fails on main.\n"), env: []string{"FAKEAGENT_READ_STDIN=1"}},
			check: func(t *testing.T, w wrapped) {
				if w.record.Stdin != "Fix the build.\nIt fails on main.\n" {
					t.Errorf("the agent read %q from stdin", w.record.Stdin)
				}
			},
		},
		{
			name: "the environment passes through, with TRACEPARENT for the session",
			spec: wrapSpec{args: streamArgs(), env: []string{stream, "CI_JOB_ID=4242", "TRACEPARENT=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}},
			check: func(t *testing.T, w wrapped) {
				if w.record.Env["CI_JOB_ID"] != "4242" {
					t.Errorf("CI_JOB_ID = %q in the agent's environment", w.record.Env["CI_JOB_ID"])
				}
				s := sessionSpan(t, w.spans)
				if s.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || s.ParentID != "00f067aa0ba902b7" {
					t.Errorf("session in trace %s under %s, want the TRACEPARENT's", s.TraceID, s.ParentID)
				}
				if want := "00-" + s.TraceID + "-" + s.SpanID + "-01"; w.record.Env["TRACEPARENT"] != want {
					t.Errorf("the agent's TRACEPARENT = %q, want the session's %q", w.record.Env["TRACEPARENT"], want)
				}
			},
		},
		{
			name: "an invalid TRACEPARENT is ignored",
			spec: wrapSpec{args: streamArgs(), env: []string{stream, "TRACEPARENT=not-a-traceparent"}},
			check: func(t *testing.T, w wrapped) {
				if s := sessionSpan(t, w.spans); s.ParentID != "" || w.exit != 0 || w.stderr != "" {
					t.Errorf("parent %q, exit %d, stderr %q: want a root span and a quiet run", s.ParentID, w.exit, w.stderr)
				}
			},
		},
		{
			name: "the exit status is the agent's; a failure keeps its stderr tail",
			spec: wrapSpec{args: streamArgs(), env: []string{"FAKEAGENT_STREAM=examples/failed-run.ndjson", "FAKEAGENT_EXIT=3", "FAKEAGENT_STDERR=Error: upstream timeout\n"}},
			check: func(t *testing.T, w wrapped) {
				if w.exit != 3 || w.stderr != "Error: upstream timeout\n" {
					t.Errorf("exit %d, stderr %q; want 3 and the agent's stderr", w.exit, w.stderr)
				}
				s := sessionSpan(t, w.spans)
				if value(s, "process.exit.code") != "3" || s.Status != "Error" || !strings.Contains(s.StatusMessage, "agent exited with status 3") {
					t.Errorf("session: exit %q, status %s %q", value(s, "process.exit.code"), s.Status, s.StatusMessage)
				}
				if value(s, "cursor.stderr_tail") != "Error: upstream timeout\n" {
					t.Errorf("stderr tail %q", value(s, "cursor.stderr_tail"))
				}
			},
		},
		{
			name: "an agent killed by signal 9 gives 137",
			spec: wrapSpec{args: streamArgs(), env: []string{stream, "FAKEAGENT_KILL=KILL"}},
			check: func(t *testing.T, w wrapped) {
				if w.exit != 137 {
					t.Errorf("exit %d, want 137", w.exit)
				}
				if s := sessionSpan(t, w.spans); value(s, "process.exit.code") != "137" || s.Status != "Error" {
					t.Errorf("session: exit %q, status %s", value(s, "process.exit.code"), s.Status)
				}
			},
		},
		{
			name: "json is run as stream-json and printed as cursor-agent prints it",
			spec: wrapSpec{args: []string{"-p", "--output-format", "json", "fix it"}, env: []string{stream}},
			check: func(t *testing.T, w wrapped) {
				if w.stdout != fixResultLine+"\n" {
					t.Errorf("stdout %q, want the result line", w.stdout)
				}
				if want := []string{"-p", "--output-format", "stream-json", "fix it"}; !slices.Equal(w.record.Args, want) {
					t.Errorf("the agent got %q, want %q", w.record.Args, want)
				}
				if len(w.spans) != 11 || value(sessionSpan(t, w.spans), "cursor.output_format") != "json" {
					t.Errorf("%d spans, format %q: want the run fully traced", len(w.spans), value(sessionSpan(t, w.spans), "cursor.output_format"))
				}
			},
		},
		{
			name: "text, cursor-agent's default in print mode, is the result's text",
			spec: wrapSpec{args: []string{"-p", "fix it"}, env: []string{stream}},
			check: func(t *testing.T, w wrapped) {
				if w.stdout != fixResultText+"\n" {
					t.Errorf("stdout %q, want the result text", w.stdout)
				}
				if len(w.spans) != 11 {
					t.Errorf("%d spans, want 11", len(w.spans))
				}
			},
		},
		{
			name: "--output-format goes first: it splits no unknown option from its value",
			spec: wrapSpec{args: []string{"--new-option", "its value", "-p", "fix it"}, env: []string{stream}},
			check: func(t *testing.T, w wrapped) {
				if want := []string{"--output-format", "stream-json", "--new-option", "its value", "-p", "fix it"}; !slices.Equal(w.record.Args, want) {
					t.Errorf("the agent got %q, want %q", w.record.Args, want)
				}
				if w.stdout != fixResultText+"\n" || len(w.spans) != 11 {
					t.Errorf("stdout %q, %d spans", w.stdout, len(w.spans))
				}
			},
		},
		{
			name: "combined short flags: -pf is print mode",
			spec: wrapSpec{args: []string{"-pf", "fix it"}, env: []string{stream}},
			check: func(t *testing.T, w wrapped) {
				if want := []string{"--output-format", "stream-json", "-pf", "fix it"}; !slices.Equal(w.record.Args, want) {
					t.Errorf("the agent got %q, want %q", w.record.Args, want)
				}
				if w.stdout != fixResultText+"\n" || len(w.spans) != 11 {
					t.Errorf("stdout %q, %d spans", w.stdout, len(w.spans))
				}
			},
		},
		{
			name: "print mode is inferred when stdin and stdout are not terminals",
			spec: wrapSpec{args: []string{"fix it"}, env: []string{stream}},
			check: func(t *testing.T, w wrapped) {
				if w.stdout != fixResultText+"\n" || len(w.spans) != 11 {
					t.Errorf("stdout %q, %d spans", w.stdout, len(w.spans))
				}
			},
		},
		{
			name: "a failed text run prints the agent's stderr and nothing on stdout",
			spec: wrapSpec{args: []string{"-p", "fix it"}, env: []string{"FAKEAGENT_STREAM=examples/failed-run.ndjson", "FAKEAGENT_EXIT=1", "FAKEAGENT_STDERR=Cannot use this model: nope\n"}},
			check: func(t *testing.T, w wrapped) {
				if w.stdout != "" || w.stderr != "Cannot use this model: nope\n" || w.exit != 1 {
					t.Errorf("stdout %q, stderr %q, exit %d", w.stdout, w.stderr, w.exit)
				}
			},
		},
		{
			name: "CURSOR_OTEL_REWRITE=off leaves json and text alone",
			spec: wrapSpec{args: []string{"-p", "fix it"}, env: []string{stream, "CURSOR_OTEL_REWRITE=off"}},
			check: func(t *testing.T, w wrapped) {
				if w.stdout != fixResultText+"\n" || !slices.Equal(w.record.Args, []string{"-p", "fix it"}) {
					t.Errorf("stdout %q, agent args %q: want the agent's own text, its args untouched", w.stdout, w.record.Args)
				}
				if len(w.spans) != 0 || w.stderr != "" {
					t.Errorf("spans %v, stderr %q: want the agent run as it is, untraced and unannounced", spanNames(w.spans), w.stderr)
				}
			},
		},
		{
			name: "subcommands run untouched",
			spec: wrapSpec{args: []string{"status"}},
			check: func(t *testing.T, w wrapped) {
				if w.stdout != "fakeagent status\n" || w.exit != 0 {
					t.Errorf("stdout %q, exit %d", w.stdout, w.exit)
				}
				if len(w.spans) != 0 || w.stderr != "" {
					t.Errorf("spans %v, stderr %q: want the agent run as it is, untraced and unannounced", spanNames(w.spans), w.stderr)
				}
			},
		},
		{
			name: "--help goes to cursor-agent after --",
			spec: wrapSpec{args: []string{"--", "--help"}},
			check: func(t *testing.T, w wrapped) {
				if w.stdout != "fakeagent --help\n" {
					t.Errorf("stdout %q", w.stdout)
				}
			},
		},
		{
			name: "events without times of their own are placed when they were read",
			spec: wrapSpec{args: streamArgs(), env: []string{"FAKEAGENT_STREAM=spanmap/testdata/streams/untimed.ndjson", "FAKEAGENT_LINE_DELAY=30ms"}},
			check: func(t *testing.T, w wrapped) {
				var tools []golden.Span
				for _, s := range w.spans {
					if strings.HasPrefix(s.Name, "execute_tool") {
						tools = append(tools, s)
					}
				}
				if len(tools) != 2 {
					t.Fatalf("%d tool spans, want 2", len(tools))
				}
				for _, s := range tools {
					// a start and its completion are one line, 30 ms, apart;
					// replayed without times they would take no time at all
					if d := s.End.Sub(s.Start); d <= 0 || d > 2*time.Second {
						t.Errorf("%s lasted %v, want about 30ms", s.Name, d)
					}
				}
				if d := sessionSpan(t, w.spans); d.End.Sub(d.Start) < 250*time.Millisecond {
					t.Errorf("session lasted %v for 10 lines 30ms apart", d.End.Sub(d.Start))
				}
			},
		},
		{
			name: "an API key on the command line is redacted in the trace",
			spec: wrapSpec{args: []string{"--api-key", "key_live_0123456789", "-p", "--output-format", "stream-json"}, env: []string{stream}},
			check: func(t *testing.T, w wrapped) {
				if !slices.Contains(w.record.Args, "key_live_0123456789") {
					t.Errorf("the agent did not get its key: %q", w.record.Args)
				}
				line := value(sessionSpan(t, w.spans), "process.command_line")
				if strings.Contains(line, "key_live_0123456789") || !strings.Contains(line, "--api-key [REDACTED]") {
					t.Errorf("command line %q", line)
				}
			},
		},
		{
			name: "no agent found: one line, exit 127",
			spec: wrapSpec{args: streamArgs(), noAgent: true, env: []string{"PATH=" + t.TempDir()}},
			check: func(t *testing.T, w wrapped) {
				if w.exit != 127 || strings.Count(w.stderr, "\n") != 1 || !strings.Contains(w.stderr, "no cursor-agent or agent on PATH") {
					t.Errorf("exit %d, stderr %q", w.exit, w.stderr)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, runWrapped(t, tt.spec))
		})
	}
}

// Whatever the agent prints reaches stdout byte for byte: every recording,
// CRLF, invalid UTF-8, lines that are not JSON, a line of megabytes, no
// final newline.
func TestWrapStdoutIsByteIdentical(t *testing.T) {
	dir := t.TempDir()
	special := map[string][]byte{
		"crlf.ndjson":        []byte("{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\r\n{\"type\":\"result\",\"result\":\"ok\"}\r\n"),
		"invalid-utf8.txt":   []byte("{\"type\":\"user\",\"message\":{\"content\":\"\xff\xfe\"}}\n\xc3\x28 not json\n"),
		"not-json.txt":       []byte("Warning: update available\n{\"type\":\"result\",\"result\":\"ok\"}\n\n   \nplain text\n"),
		"no-final-newline":   []byte("{\"type\":\"system\",\"subtype\":\"init\"}\n{\"type\":\"result\",\"result\":\"partial\"}"),
		"huge-line.ndjson":   append(append([]byte(`{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"result":{"success":{"stdout":"`), bytes.Repeat([]byte("x"), 5<<20)...), []byte("\"}}}}}\n{\"type\":\"result\",\"result\":\"ok\"}\n")...),
		"empty":              nil,
		"only-newlines.ndjs": []byte("\n\n\n"),
	}
	paths, _ := filepath.Glob("examples/*.ndjson")
	real, _ := filepath.Glob("../shared/fixtures/real/*.ndjson")
	paths = append(paths, real...)
	for name, b := range special {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			want, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			w := runWrapped(t, wrapSpec{args: streamArgs(), env: []string{"FAKEAGENT_STREAM=" + p, "FAKEAGENT_SPEED=1000000"}})
			if w.stdout != string(want) {
				t.Errorf("stdout differs from what the agent wrote: %d bytes, want %d", len(w.stdout), len(want))
			}
			if w.exit != 0 || w.stderr != "" {
				t.Errorf("exit %d, stderr %q", w.exit, w.stderr)
			}
		})
	}
}

// Installed under the name cursor-agent, cursor-otel takes no flags, and
// finds the real agent after itself on PATH however it was installed.
func TestWrapInstalledAsCursorAgent(t *testing.T) {
	realDir := t.TempDir()
	if err := os.Symlink(fakeAgent, filepath.Join(realDir, "cursor-agent")); err != nil {
		t.Fatal(err)
	}
	for _, install := range []string{"symlink", "hard link", "copy"} {
		t.Run(install, func(t *testing.T) {
			dir := t.TempDir()
			name := filepath.Join(dir, "cursor-agent")
			var err error
			switch install {
			case "symlink":
				err = os.Symlink(binary, name)
			case "hard link":
				err = os.Link(binary, name)
			case "copy":
				var b []byte
				if b, err = os.ReadFile(binary); err == nil {
					err = os.WriteFile(name, b, 0o755)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			w := runWrapped(t, wrapSpec{
				binary: name, noAgent: true,
				args: append([]string{"--capture-content"}, streamArgs()...),
				env:  []string{"PATH=" + dir + string(os.PathListSeparator) + realDir, "FAKEAGENT_STREAM=examples/failed-run.ndjson", "CURSOR_OTEL_CAPTURE_CONTENT=true"},
			})
			if want := append([]string{"--capture-content"}, streamArgs()...); !slices.Equal(w.record.Args, want) {
				t.Errorf("the agent got %q, want every argument, %q", w.record.Args, want)
			}
			if len(w.spans) != 5 || value(sessionSpan(t, w.spans), "gen_ai.input.messages") == "" {
				t.Errorf("%d spans, input %q: want a traced run with content from CURSOR_OTEL_CAPTURE_CONTENT", len(w.spans), value(sessionSpan(t, w.spans), "gen_ai.input.messages"))
			}
		})
	}
}

// A signal to cursor-otel reaches the agent; cursor-otel waits for it, ends
// the open spans as interrupted, flushes, and exits with its status.
func TestWrapForwardsSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			recv := otlptest.StartGRPC(t)
			signals := filepath.Join(t.TempDir(), "signals")
			cmd := exec.Command(binary, streamArgs()...)
			cmd.Env = withBaseEnv(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeAgent,
				"FAKEAGENT_STREAM=spanmap/testdata/streams/unmatched-tools.ndjson", "FAKEAGENT_SPEED=1000000",
				"FAKEAGENT_HANG=1", "FAKEAGENT_SIGNALS=" + signals})
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// If the signal never reaches the agent, neither exits: fail
			// rather than hang.
			watchdog := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
			defer watchdog.Stop()
			// The agent has written its stream (and so is running) once its
			// last line reaches cursor-otel's stdout.
			lines := bufio.NewScanner(stdout)
			for n := 0; n < 8 && lines.Scan(); n++ {
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			go io.Copy(io.Discard, stdout)
			err = cmd.Wait()
			exit := cmd.ProcessState.ExitCode()
			if want := 128 + int(sig); exit != want {
				t.Errorf("exit %d (%v), want %d", exit, err, want)
			}
			got, _ := os.ReadFile(signals)
			if strings.TrimSpace(string(got)) != sig.String() {
				t.Errorf("the agent received %q, want %q once", got, sig.String())
			}
			spans := golden.FromOTLP(recv.Spans())
			s := sessionSpan(t, spans)
			// Ctrl-C is the person cancelling the turn: nothing failed,
			// the running tool is left incomplete.
			cancelled := sig == syscall.SIGINT
			switch {
			case cancelled && (s.Status == "Error" || value(s, "error.type") != ""):
				t.Errorf("session status %s %q error.type=%q, want a cancelled turn: no error", s.Status, s.StatusMessage, value(s, "error.type"))
			case !cancelled && (s.Status != "Error" || !strings.HasPrefix(s.StatusMessage, "interrupted")):
				t.Errorf("session status %s %q, want it interrupted", s.Status, s.StatusMessage)
			}
			var incomplete int
			for _, sp := range spans {
				if value(sp, "cursor.tool.outcome") != "incomplete" {
					continue
				}
				if cancelled && sp.Status != "Error" && value(sp, "error.type") == "" || !cancelled && sp.StatusMessage == "interrupted" {
					incomplete++
				}
			}
			if incomplete != 1 {
				t.Errorf("%d tool spans ended incomplete as the signal says, want the one running (sleep 60)", incomplete)
			}
		})
	}
}

// A collector that is down, refuses or hangs changes neither stdout nor the
// exit status, delays exit by at most the flush timeout, and costs one line
// on stderr (none with --quiet).
func TestWrapNeverInTheWay(t *testing.T) {
	fix, _ := os.ReadFile("examples/fix-failing-test.ndjson")
	down, hanging := otlptest.Down(t), otlptest.Hanging(t)
	for _, tt := range []struct {
		name     string
		endpoint string
		args     []string
		warn     bool
	}{
		{"collector down", down, streamArgs(), true},
		{"collector hanging", hanging, streamArgs(), true},
		{"collector down, --quiet", down, append([]string{"--quiet"}, streamArgs()...), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			alone := runCommand(t, fakeAgent, []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "FAKEAGENT_EXIT=2"}, nil, streamArgs()...)
			w := runWrapped(t, wrapSpec{args: tt.args, endpoint: tt.endpoint, env: []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "FAKEAGENT_EXIT=2"}})
			if w.stdout != string(fix) || w.exit != 2 {
				t.Errorf("stdout same: %v, exit %d; want the agent's, 2", w.stdout == string(fix), w.exit)
			}
			lines := strings.Count(w.stderr, "\n")
			if tt.warn && (lines != 1 || !regexp.MustCompile(`\d+ of 11 spans( not exported| \(they may have arrived\))`).MatchString(w.stderr)) {
				t.Errorf("stderr %q, want one warning line", w.stderr)
			}
			if !tt.warn && w.stderr != "" {
				t.Errorf("stderr %q, want nothing", w.stderr)
			}
			if extra := w.took - alone.took; extra > 3500*time.Millisecond {
				t.Errorf("took %v against the agent's %v: more than the 3s flush timeout", w.took, alone.took)
			}
			t.Logf("%s: agent alone %v, through cursor-otel %v", tt.name, alone.took.Round(time.Millisecond), w.took.Round(time.Millisecond))
		})
	}
}

// BenchmarkWrapOverhead is the time cursor-otel adds to a small traced run:
// the stand-in agent replaying examples/fix-failing-test.ndjson (39 lines,
// no pauses) alone, and through cursor-otel exporting 11 spans to a gRPC
// receiver on this machine.
func BenchmarkWrapOverhead(b *testing.B) {
	recv := otlptest.StartGRPC(b)
	env := []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "FAKEAGENT_SPEED=1000000000"}
	b.Run("agent alone", func(b *testing.B) {
		for b.Loop() {
			runCommand(b, fakeAgent, env, nil, streamArgs()...)
		}
	})
	b.Run("through cursor-otel", func(b *testing.B) {
		env := append([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeAgent}, env...)
		for b.Loop() {
			if r := runCommand(b, binary, env, nil, streamArgs()...); r.exit != 0 {
				b.Fatalf("exit %d: %s", r.exit, r.stderr)
			}
		}
	})
}

// How long a line takes from the agent's write to cursor-otel's stdout.
func TestWrapPassthroughDelay(t *testing.T) {
	const lines = 200
	dir := t.TempDir()
	streamPath, times := filepath.Join(dir, "stream.ndjson"), filepath.Join(dir, "times")
	if err := os.WriteFile(streamPath, lag.Stream(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	recv := otlptest.StartGRPC(t)
	cmd := exec.Command(binary, streamArgs()...)
	cmd.Env = withBaseEnv(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeAgent,
		"FAKEAGENT_STREAM=" + streamPath, "FAKEAGENT_LINE_DELAY=5ms", "FAKEAGENT_TIMES=" + times})
	delays, err := lag.Lines(cmd, times)
	if err != nil {
		t.Fatal(err)
	}
	if len(delays) != lines {
		t.Fatalf("%d delays for %d lines", len(delays), lines)
	}
	median, worst := delays[len(delays)/2], delays[len(delays)-1]
	t.Logf("passthrough delay over %d lines: median %v, p99 %v, worst %v", lines, median, delays[len(delays)*99/100], worst)
	// A hot path that waited 10 ms a line measured a 15 ms median; the worst
	// bound only guards against a stall, whatever the machine's load.
	if timingChecked(t) && (median > 5*time.Millisecond || worst > 500*time.Millisecond) {
		t.Errorf("median %v, worst %v: a line must not wait for the tracer", median, worst)
	}
}

// A user who closes stdout early (`| head -1`) sees what the agent alone
// gives: the agent learns of the closed pipe, exits by SIGPIPE, and the
// trace of what it did is still flushed.
func TestWrapClosedStdout(t *testing.T) {
	dir := t.TempDir()
	var stream bytes.Buffer
	for i := range 3000 {
		fmt.Fprintf(&stream, `{"type":"thinking","subtype":"delta","text":"t%d","session_id":"s"}`+"\n", i)
	}
	path := filepath.Join(dir, "long.ndjson")
	os.WriteFile(path, stream.Bytes(), 0o644)
	recv := otlptest.StartGRPC(t)
	cmd := exec.Command(binary, streamArgs()...)
	cmd.Env = withBaseEnv(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeAgent,
		"FAKEAGENT_STREAM=" + path, "FAKEAGENT_LINE_DELAY=1ms"})
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, _ := bufio.NewReader(stdout).ReadString('\n')
	stdout.Close()
	cmd.Wait()
	if first == "" {
		t.Fatal("nothing on stdout")
	}
	if exit := cmd.ProcessState.ExitCode(); exit != 128+int(syscall.SIGPIPE) {
		t.Errorf("exit %d, want %d: the agent's own death by SIGPIPE", exit, 128+int(syscall.SIGPIPE))
	}
	if got := recv.SpanCount(); got < 2 {
		t.Errorf("%d spans received, want the session and its model call flushed", got)
	}
}

func spansOf(r *otlptest.Receiver) []golden.Span { return golden.FromOTLP(r.Spans()) }
