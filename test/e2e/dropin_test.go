package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

// dropIn is cursor-otel installed as cursor-agent, earlier on PATH than
// the stand-in agent, as a user installs it.
type dropIn struct {
	link string // .../dropin/cursor-agent -> cursor-otel
	path string // PATH: the drop-in, then the real agent
}

func installDropIn(t *testing.T) dropIn {
	t.Helper()
	dir, realDir := t.TempDir(), t.TempDir()
	link := filepath.Join(dir, "cursor-agent")
	if err := os.Symlink(binary, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fakeAgent, filepath.Join(realDir, "cursor-agent")); err != nil {
		t.Fatal(err)
	}
	return dropIn{link: link, path: dir + string(os.PathListSeparator) + realDir + string(os.PathListSeparator) + "/usr/bin:/bin"}
}

// run runs the drop-in with the environment given (and its PATH), bounded:
// cursor-otel starts programs, which might start cursor-otel.
func (d dropIn) run(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return runBounded(t, d.link, append([]string{"PATH=" + d.path}, env...), args...)
}

// runBounded runs a program in a process group of its own, killed with all
// it started after 30 s or at the test's end.
func runBounded(t *testing.T, bin string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = withBaseEnv(t, env)
	return runStarted(t, cmd, func() { proctest.Start(t, cmd, 30*time.Second) })
}

// 1. A wrong setting never stops the agent: the agent runs, untraced, with
// its own stdout and exit status, and one line says what is wrong and what
// to write. The spellings people use are read as meant.
func TestWrongSettingNeverStopsTheAgent(t *testing.T) {
	d := installDropIn(t)
	stream, _ := os.ReadFile("examples/failed-run.ndjson")
	for _, tt := range []struct {
		setting string
		says    string // "" when the setting is fine and the run is traced
	}{
		{"CURSOR_OTEL_FLUSH_TIMEOUT=5x", `CURSOR_OTEL_FLUSH_TIMEOUT="5x": not a duration: write 3s, 500ms, or a number of seconds`},
		{"CURSOR_OTEL_CAPTURE_CONTENT=maybe", `CURSOR_OTEL_CAPTURE_CONTENT="maybe": not on or off: write true or false`},
		{"CURSOR_OTEL_MAX_ATTRIBUTE_LENGTH=16kk", `CURSOR_OTEL_MAX_ATTRIBUTE_LENGTH="16kk": not a size`},
		{"CURSOR_OTEL_QUIET=sometimes", `CURSOR_OTEL_QUIET="sometimes": not on or off`},
		{"CURSOR_OTEL_REDACT=ACME-[0-9", `CURSOR_OTEL_REDACT="ACME-[0-9": not a regular expression (missing closing ])`},
		{"CURSOR_OTEL_TRACE_URL=http://jaeger:16686/trace", `CURSOR_OTEL_TRACE_URL="http://jaeger:16686/trace": no {trace_id} in it`},
		{"OTEL_EXPORTER_OTLP_CERTIFICATE=/nonexistent/ca.pem", `OTEL_EXPORTER_OTLP_CERTIFICATE: /nonexistent/ca.pem: no such file or directory`},
		{"OTEL_EXPORTER_OTLP_PROTOCOL=http/json", `OTEL_EXPORTER_OTLP_PROTOCOL="http/json" is not supported: write grpc or http/protobuf`},
		{"OTEL_TRACES_SAMPLER_ARG=half", ""}, // read only by a ratio sampler, which is not set
		{"CURSOR_OTEL_FLUSH_TIMEOUT=5", ""},  // seconds
		{"CURSOR_OTEL_CAPTURE_CONTENT=on", ""},
		{"CURSOR_OTEL_CAPTURE_CONTENT=TRUE", ""},
		{"CURSOR_OTEL_MAX_ATTRIBUTE_LENGTH=16k", ""},
	} {
		t.Run(tt.setting, func(t *testing.T) {
			recv := otlptest.StartGRPC(t)
			r := d.run(t, []string{tt.setting, "OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint,
				"FAKEAGENT_STREAM=examples/failed-run.ndjson", "FAKEAGENT_SPEED=1000000", "FAKEAGENT_EXIT=3"}, streamArgs("fix it")...)
			if r.stdout != string(stream) || r.exit != 3 {
				t.Errorf("stdout the agent's: %v, exit %d; want the agent's run and its status 3", r.stdout == string(stream), r.exit)
			}
			if tt.says == "" {
				if r.stderr != "" || recv.SpanCount() != 5 {
					t.Errorf("stderr %q, %d spans; want a traced run (5 spans) and nothing said", r.stderr, recv.SpanCount())
				}
				return
			}
			if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tt.says) || !strings.HasSuffix(r.stderr, "running cursor-agent untraced\n") {
				t.Errorf("stderr %q; want one line saying %q and that the agent runs untraced", r.stderr, tt.says)
			}
			if n := recv.SpanCount(); n != 0 {
				t.Errorf("%d spans exported with a setting that is wrong", n)
			}
		})
	}
}

// 7. A flag of cursor-otel's without its value is a usage error: nothing
// runs, no file named after the next word appears.
func TestFlagWithoutItsValue(t *testing.T) {
	for _, args := range [][]string{
		{"--summary"},
		{"--agent"},
		{"--flush-timeout", "-p", "hi"},
		{"--redact", "--", "-p", "hi"},
		{"--summary-json", "--quiet", "-p"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := t.TempDir()
			record := filepath.Join(dir, "record.json")
			cmd := exec.Command(binary, args...)
			cmd.Dir = dir
			cmd.Env = withBaseEnv(t, []string{"CURSOR_OTEL_AGENT=" + fakeAgent, "FAKEAGENT_RECORD=" + record})
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			exit, _ := err.(*exec.ExitError)
			if exit == nil || exit.ExitCode() != 2 {
				t.Errorf("exit %v; want 2", err)
			}
			if want := args[0] + " needs a value (" + args[0] + "=VALUE)"; strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr %q; want one line saying %q", stderr.String(), want)
			}
			if _, err := os.Stat(record); err == nil {
				t.Errorf("the agent ran")
			}
			if files, _ := os.ReadDir(dir); len(files) != 0 {
				t.Errorf("files written: %v", files)
			}
		})
	}
}

// 5. Invocations that are not traced print nothing of cursor-otel's, with
// the default collector absent or a named one down.
func TestUntracedInvocationsAreSilent(t *testing.T) {
	d := installDropIn(t)
	for _, endpoint := range []string{"", "OTEL_EXPORTER_OTLP_ENDPOINT=" + otlptest.Down(t)} {
		for _, args := range [][]string{{"--version"}, {"status"}, {"ls"}, {"--help"}, {"login"}, {"-p", "--help"}, {"mcp", "list"}} {
			t.Run(strings.Join(args, " ")+" "+endpoint, func(t *testing.T) {
				r := d.run(t, []string{endpoint}, args...)
				if want := "fakeagent " + strings.Join(args, " ") + "\n"; r.stdout != want || r.stderr != "" || r.exit != 0 {
					t.Errorf("stdout %q, stderr %q, exit %d; want %q and nothing else", r.stdout, r.stderr, r.exit, want)
				}
				if r.took > 2*time.Second {
					t.Errorf("took %v", r.took)
				}
			})
		}
	}
}

// 6. Reports are about the run, not the export decision: an unsampled
// TRACEPARENT or a sampler that drops everything exports nothing and
// writes every report.
func TestReportsDoNotDependOnSampling(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	dir := t.TempDir()
	md, js := filepath.Join(dir, "summary.md"), filepath.Join(dir, "summary.jsonl")
	w := runWrapped(t, wrapSpec{args: streamArgs(), endpoint: recv.Endpoint, env: []string{
		"FAKEAGENT_STREAM=examples/parallel-tools.ndjson", "FAKEAGENT_SPEED=1000000",
		"TRACEPARENT=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
		"CURSOR_OTEL_SUMMARY=" + md, "CURSOR_OTEL_SUMMARY_JSON=" + js}})
	if w.exit != 0 || w.stderr != "" {
		t.Fatalf("exit %d, stderr %q", w.exit, w.stderr)
	}
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "OTEL_TRACES_SAMPLER=always_off"}, nil,
		"--summary", md, "--summary-json", js, "replay", "examples/parallel-tools.ndjson")
	if r.exit != 0 || r.stderr != "" || !treeHeader.MatchString(r.stdout) {
		t.Errorf("replay: exit %d, stderr %q, stdout %q; want the tree printed", r.exit, r.stderr, r.stdout)
	}
	if n := recv.SpanCount(); n != 0 {
		t.Errorf("%d spans exported; the sampler said none", n)
	}
	if page := readFile(t, md); strings.Count(page, "### cursor-agent succeeded") != 2 {
		t.Errorf("Markdown summary:\n%s\nwant two reports", page)
	}
	if lines := strings.Count(readFile(t, js), "\n"); lines != 2 {
		t.Errorf("%d JSON reports, want 2", lines)
	}
}

// spansNamed returns the spans whose name starts with prefix.
func spansNamed(spans []golden.Span, prefix string) []golden.Span {
	var out []golden.Span
	for _, s := range spans {
		if strings.HasPrefix(s.Name, prefix) {
			out = append(out, s)
		}
	}
	return out
}

// 2. No process chains: CURSOR_OTEL_AGENT naming the drop-in, another
// build of cursor-otel installed as cursor-agent, and a wrapper script
// around cursor-otel found as cursor-agent all end, in a handful of
// processes, with one line and 127 (or, for another build, with the real
// agent run).
func TestNoProcessChains(t *testing.T) {
	d := installDropIn(t)
	stream, _ := os.ReadFile("examples/failed-run.ndjson")
	env := []string{"FAKEAGENT_STREAM=examples/failed-run.ndjson", "FAKEAGENT_SPEED=1000000", "OTEL_TRACES_EXPORTER=none"}

	t.Run("CURSOR_OTEL_AGENT names the drop-in", func(t *testing.T) {
		r := d.run(t, append(env, "CURSOR_OTEL_AGENT="+d.link), streamArgs()...)
		if r.exit != 127 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "which is cursor-otel itself") {
			t.Errorf("exit %d, stderr %q; want 127 and one line", r.exit, r.stderr)
		}
	})

	t.Run("two builds on PATH, both named cursor-agent", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "cursor-agent")
		b, err := os.ReadFile(binary)
		if err != nil {
			t.Fatal(err)
		}
		// Other bytes, the same program: another version of cursor-otel.
		if err := os.WriteFile(other, append(b, "another build"...), 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Dir(other) + string(os.PathListSeparator) + d.path
		for _, first := range []string{other, d.link} {
			r := runBounded(t, first, append([]string{"PATH=" + path}, env...), streamArgs()...)
			if r.stdout != string(stream) || r.exit != 0 || r.stderr != "" {
				t.Errorf("%s: stdout the agent's: %v, exit %d, stderr %q; want the real agent run once", first, r.stdout == string(stream), r.exit, r.stderr)
			}
		}
	})

	t.Run("a wrapper script around cursor-otel, found as cursor-agent", func(t *testing.T) {
		dir := t.TempDir()
		starts := filepath.Join(dir, "starts")
		script := "#!/bin/sh\necho $$ >> " + starts + "\n" + binary + " \"$@\"\n" // not exec: a new process each time
		if err := os.WriteFile(filepath.Join(dir, "cursor-agent"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		r := runBounded(t, binary, append([]string{"PATH=" + dir + ":/usr/bin:/bin"}, env...), streamArgs()...)
		n := strings.Count(readFile(t, starts), "\n")
		if r.exit != 127 || n > 8 || !strings.Contains(r.stderr, "cursor-otel is running itself as cursor-agent, 8 deep") {
			t.Errorf("exit %d after %d levels, stderr %q; want 127 within 8 levels, and the line that says why", r.exit, n, r.stderr)
		}
		if r.took > 10*time.Second {
			t.Errorf("took %v", r.took)
		}
	})
}

// 3. A rewritten (json, text) run never swallows output: lines that are
// not events reach the user as the agent printed them, in order with the
// rendered result.
func TestRewrittenRunKeepsTheAgentsOtherOutput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notLoggedIn := write("not-logged-in", "Error: You are not logged in. Run `cursor-agent login` first.\r\n")
	result := `{"type":"result","subtype":"success","is_error":false,"result":"All done.","session_id":"s1","duration_ms":20}`
	warned := write("warned", "Warning: an update is available\n"+
		`{"type":"system","subtype":"init","session_id":"s1","model":"Auto"}`+"\n\n"+
		result+"\n"+
		"Bye.\n")
	for _, tt := range []struct {
		name, stream, format string
		exit                 string
		stdout               string
	}{
		{"not logged in, text", notLoggedIn, "text", "1", "Error: You are not logged in. Run `cursor-agent login` first.\r\n"},
		{"not logged in, json", notLoggedIn, "json", "1", "Error: You are not logged in. Run `cursor-agent login` first.\r\n"},
		{"warnings around the result, text", warned, "text", "0", "Warning: an update is available\n\nAll done.\nBye.\n"},
		{"warnings around the result, json", warned, "json", "0", "Warning: an update is available\n\n" + result + "\nBye.\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := runWrapped(t, wrapSpec{args: []string{"-p", "--output-format", tt.format, "hi"},
				env: []string{"FAKEAGENT_STREAM=" + tt.stream, "FAKEAGENT_EXIT=" + tt.exit}})
			if w.stdout != tt.stdout || w.stderr != "" {
				t.Errorf("stdout %q, stderr %q; want %q", w.stdout, w.stderr, tt.stdout)
			}
		})
	}
}

// 4. A line bigger than the tracer's backlog, written in one burst (a
// 20 MB tool result), is traced: the tool succeeded, the session too.
func TestHugeLineIsTraced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.ndjson")
	huge := strings.Repeat("0123456789abcdef", 20<<20/16)
	stream := `{"type":"system","subtype":"init","session_id":"big","model":"Auto"}` + "\n" +
		`{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"cat big.log"}}},"model_call_id":"m1","timestamp_ms":1790000000000}` + "\n" +
		`{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"shellToolCall":{"result":{"success":{"exitCode":0,"stdout":"` + huge + `"}}}},"model_call_id":"m1","timestamp_ms":1790000001000}` + "\n" +
		`{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"big","duration_ms":1200}` + "\n"
	if err := os.WriteFile(path, []byte(stream), 0o644); err != nil {
		t.Fatal(err)
	}
	w := runWrapped(t, wrapSpec{args: streamArgs(), env: []string{"FAKEAGENT_STREAM=" + path, "FAKEAGENT_SPEED=1000000"}})
	if w.stdout != stream || w.exit != 0 || w.stderr != "" {
		t.Fatalf("stdout the agent's: %v, exit %d, stderr %q", w.stdout == stream, w.exit, w.stderr)
	}
	tools := spansNamed(w.spans, "execute_tool")
	if len(tools) != 1 || value(tools[0], "cursor.tool.outcome") != "success" || tools[0].Status == "Error" || value(tools[0], "cursor.tool.output_bytes") != "20971520" {
		t.Errorf("tool spans %v; want one, successful, with 20971520 output bytes", tools)
	}
	if s := sessionSpan(t, w.spans); s.Status == "Error" || value(s, "cursor.stream.untraced_bytes") != "" {
		t.Errorf("session %s %q, untraced %q; want a success, all traced", s.Status, s.StatusMessage, value(s, "cursor.stream.untraced_bytes"))
	}
}

// 11. An agent whose clock is off from cursor-otel's: no negative or
// too-long figure, nothing outside its parent, through the binary.
func TestSkewedAgentClock(t *testing.T) {
	for _, skew := range []string{"-5s", "5s"} {
		t.Run(skew, func(t *testing.T) {
			w := runWrapped(t, wrapSpec{args: streamArgs(), env: []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson",
				"FAKEAGENT_REBASE=1", "FAKEAGENT_SPEED=200", "FAKEAGENT_SKEW=" + skew}})
			if w.exit != 0 || len(w.spans) != 11 {
				t.Fatalf("exit %d, %d spans", w.exit, len(w.spans))
			}
			byID := map[string]golden.Span{}
			for _, s := range w.spans {
				byID[s.SpanID] = s
			}
			session := sessionSpan(t, w.spans)
			wall := session.End.Sub(session.Start)
			for _, s := range w.spans {
				if s.End.Before(s.Start) {
					t.Errorf("%s ends before it starts", s.Name)
				}
				if p, ok := byID[s.ParentID]; ok && (s.Start.Before(p.Start) || s.End.After(p.End)) {
					t.Errorf("%s [%v, %v] outside %s [%v, %v]", s.Name, s.Start.Sub(session.Start), s.End.Sub(session.Start), p.Name, p.Start.Sub(session.Start), p.End.Sub(session.Start))
				}
				if v, err := strconv.Atoi(value(s, "cursor.time_to_first_token_ms")); err == nil && (v < 0 || time.Duration(v)*time.Millisecond > wall) {
					t.Errorf("%s: time to first token %d ms in a %v session", s.Name, v, wall)
				}
			}
		})
	}
}
