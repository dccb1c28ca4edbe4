package e2e

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/synth"
)

// treeHeader is the first line of each printed trace.
var treeHeader = regexp.MustCompile(`(?m)^trace [0-9a-f]{32}`)

// binary is cursor-otel built from this tree for the end-to-end tests.
var binary string

// cover is how binary counts in go test -cover (see testCoverage).
var cover coverage

// TestMain builds the binary and the stand-in agent once, and runs the
// tests from the repository's root, as a user runs the README's commands
// (examples/…, ../shared beside it).
func TestMain(m *testing.M) {
	if err := os.Chdir("../.."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "cursor-otel-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "cursor-otel")
	flag.Parse()
	raiseParallel()
	cover = testCoverage()
	build := append(append([]string{"build"}, cover.buildFlags...), "-o", binary, ".")
	if out, err := exec.Command("go", build...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build cursor-otel: %v\n%s", err, out)
		os.Exit(1)
	}
	// CURSOR_OTEL_TEST_BINARY runs the end-to-end tests against another
	// build, say an older one, to see which of them it fails.
	if other := os.Getenv("CURSOR_OTEL_TEST_BINARY"); other != "" {
		binary = other
	}
	if err := buildFakeAgent(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	exit           int
	took           time.Duration
}

// parallelWaiting is how many of the tests marked parallel run at once
// unless -parallel says otherwise: they wait on timers (the hooks' grace,
// the delivery's backoff), not on the CPU, so more than GOMAXPROCS of
// them fit; the tests that measure time are never marked parallel.
const parallelWaiting = 6

// keepParallel leaves -test.parallel at GOMAXPROCS: the whole
// combination suite (-tags combinations) sets it, whose hundreds of cells
// start processes at once.
var keepParallel bool

// raiseParallel sets -test.parallel to parallelWaiting when it was not
// given, unless keepParallel.
func raiseParallel() {
	if keepParallel {
		return
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(parallelWaiting))
	}
}

// runBinary runs cursor-otel with only the environment given (and PATH,
// HOME), so that the developer's own OTEL_* settings do not leak in.
func runBinary(t *testing.T, env []string, stdin io.Reader, args ...string) result {
	t.Helper()
	return runCommand(t, binary, env, stdin, args...)
}

func TestReplayExportsOverOTLP(t *testing.T) {
	for _, tt := range []struct {
		name     string
		start    func(testing.TB) *otlptest.Receiver
		protocol string
	}{
		{"grpc", func(t testing.TB) *otlptest.Receiver { return otlptest.StartGRPC(t) }, "grpc"},
		{"http/protobuf", otlptest.StartHTTP, "http/protobuf"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recv := tt.start(t)
			r := runBinary(t, []string{
				"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint,
				"OTEL_EXPORTER_OTLP_PROTOCOL=" + tt.protocol,
			}, nil, "replay", "examples/fix-failing-test.ndjson")
			if r.exit != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing", r.exit, r.stderr)
			}
			// The trace that crossed the wire is the one the span model
			// makes in memory.
			got := golden.Render(golden.FromOTLP(recv.Spans()))
			golden.Check(t, "spanmap/testdata/example-fix-failing-test.golden", got, false)
			if name := resourceAttr(recv.Spans(), "service.name"); name != "cursor-agent" {
				t.Errorf("service.name = %q, want cursor-agent", name)
			}
		})
	}
}

func resourceAttr(spans []*tracepb.ResourceSpans, key string) string {
	for _, rs := range spans {
		for _, a := range rs.GetResource().GetAttributes() {
			if a.GetKey() == key {
				return a.GetValue().GetStringValue()
			}
		}
	}
	return ""
}

func TestReplayResourceFromEnvironment(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	r := runBinary(t, []string{
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint,
		"OTEL_SERVICE_NAME=ci-agent",
		"OTEL_RESOURCE_ATTRIBUTES=deployment.environment.name=ci,team=platform",
	}, nil, "replay", "--quiet", "examples/failed-run.ndjson")
	if r.exit != 0 {
		t.Fatalf("exit %d: %s", r.exit, r.stderr)
	}
	if v := resourceAttr(recv.Spans(), "telemetry.distro.version"); v == "" {
		t.Error("no telemetry.distro.version")
	}
	for key, want := range map[string]string{"service.name": "ci-agent", "deployment.environment.name": "ci", "team": "platform",
		"telemetry.distro.name": "cursor-otel"} {
		if got := resourceAttr(recv.Spans(), key); got != want {
			t.Errorf("resource %s = %q, want %q", key, got, want)
		}
	}
}

// Several files, and stdin, are each their own stream: one trace per
// session, all exported.
func TestReplaySeveralFilesAndStdin(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	stdin, err := os.Open("examples/failed-run.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint}, stdin,
		"replay", "examples/fix-failing-test.ndjson", "-", "examples/parallel-tools.ndjson")
	if r.exit != 0 {
		t.Fatalf("exit %d: %s", r.exit, r.stderr)
	}
	if got := len(treeHeader.FindAllString(r.stdout, -1)); got != 3 {
		t.Errorf("printed %d trees, want 3:\n%s", got, r.stdout)
	}
	if got, want := recv.SpanCount(), 11+5+6; got != want {
		t.Errorf("received %d spans, want %d", got, want)
	}
	traces := map[string]bool{}
	for _, s := range golden.FromOTLP(recv.Spans()) {
		traces[s.TraceID] = true
	}
	if len(traces) != 3 {
		t.Errorf("spans in %d traces, want 3", len(traces))
	}
}

// The tree a person reads: trace id, each span under its parent with its
// offset, duration, what it did and how it ended.
func TestReplayPrintsTheTree(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint}, nil, "replay", "examples/fix-failing-test.ndjson")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^trace [0-9a-f]{32}  session 7f3c9a1e-5b2d-4c8e-9f10-2a6b3c4d5e6f$`),
		regexp.MustCompile(`(?m)^ +\+0\.00s +31\.20s  invoke_agent cursor-agent +93332 in / 1876 out tokens  \$0\.21$`),
		regexp.MustCompile(`(?m)^ +\+6\.31s +9\.15s {6}execute_tool shell +go test \./pkg/queue  exit 1  ERROR$`),
		regexp.MustCompile(`(?m)^ +\+15\.46s +2\.56s {4}chat Claude 4\.5 Sonnet +thinking 1\.49s$`),
	} {
		if !want.MatchString(r.stdout) {
			t.Errorf("tree lacks a line matching %s:\n%s", want, r.stdout)
		}
	}
}

// Quiet prints nothing: no tree, no warning.
func TestReplayQuiet(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint}, nil, "replay", "--quiet", "examples/parallel-tools.ndjson")
	if r.exit != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0 and nothing", r.exit, r.stdout, r.stderr)
	}
	if recv.SpanCount() != 6 {
		t.Errorf("received %d spans, want 6: quiet is about the terminal, not the export", recv.SpanCount())
	}
}

// With no endpoint set and nothing on the default one, replay still prints
// the tree, says so in one line, and succeeds.
func TestReplayWithNoCollector(t *testing.T) {
	if c, err := net.DialTimeout("tcp", "127.0.0.1:4317", 200*time.Millisecond); err == nil {
		c.Close()
		t.Skip("something listens on the default endpoint 127.0.0.1:4317")
	}
	r := runBinary(t, nil, nil, "replay", "examples/fix-failing-test.ndjson")
	if r.exit != 0 {
		t.Errorf("exit %d, want 0", r.exit)
	}
	if !strings.Contains(r.stdout, "execute_tool shell") {
		t.Errorf("no tree on stdout:\n%s", r.stdout)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "no collector reached at localhost:4317") || !strings.Contains(lines[0], "docker compose up -d") {
		t.Errorf("stderr = %q, want one line naming the endpoint and how to start Jaeger", r.stderr)
	}
	if r.took > 2*time.Second {
		t.Errorf("took %v with nothing to export to", r.took)
	}
}

// An endpoint the user named that cannot be reached is an error: exit 1,
// one clear line, the tree still printed.
func TestReplayWithNamedCollectorDown(t *testing.T) {
	down := otlptest.Down(t)
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + down}, nil, "replay", "examples/failed-run.ndjson")
	if r.exit != 1 {
		t.Errorf("exit %d, want 1", r.exit)
	}
	want := "cursor-otel: export to " + down + " failed: connection refused; 5 of 5 spans not exported, not kept: replay the file again once a collector listens; metrics not exported either\n"
	if r.stderr != want {
		t.Errorf("stderr = %q\nwant     %q", r.stderr, want)
	}
	if !strings.Contains(r.stdout, "execute_tool read") {
		t.Errorf("no tree on stdout:\n%s", r.stdout)
	}
	if r.took > 3500*time.Millisecond {
		t.Errorf("took %v, over the 3s flush timeout", r.took)
	}
}

// A summary that cannot be written and an export that failed are one
// line on stderr, not two; either makes the status 1.
func TestReplayOneLineForEverythingWrong(t *testing.T) {
	down := otlptest.Down(t)
	summary := t.TempDir() // a directory: appending to it fails
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + down}, nil, "replay", "--quiet", "--summary", summary, "examples/failed-run.ndjson")
	if r.exit != 1 {
		t.Errorf("exit %d, want 1", r.exit)
	}
	if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "write the summary") || !strings.Contains(r.stderr, "5 of 5 spans not exported") {
		t.Errorf("stderr = %q; want one line saying both", r.stderr)
	}
}

func TestReplayMissingFile(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint}, nil, "replay", "--quiet", "missing.ndjson", "examples/failed-run.ndjson")
	if r.exit != 1 || r.stderr != "cursor-otel: replay: open missing.ndjson: no such file or directory\n" {
		t.Errorf("exit %d, stderr %q; want 1 and one line naming the file", r.exit, r.stderr)
	}
	if recv.SpanCount() != 5 {
		t.Errorf("received %d spans, want 5: the other file is still replayed", recv.SpanCount())
	}
}

// Every real recording replays over the wire: every span arrives.
func TestReplayRealRecordings(t *testing.T) {
	paths, _ := filepath.Glob("../shared/fixtures/real/*.ndjson")
	if len(paths) == 0 {
		t.Skip("../shared/fixtures/real not present")
	}
	recv := otlptest.StartGRPC(t)
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint}, nil, append([]string{"replay"}, paths...)...)
	if r.exit != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.exit, r.stderr)
	}
	want := 0
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".ndjson")
		b, err := os.ReadFile(filepath.Join("spanmap/testdata", "real-"+name+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		want += strings.Count(string(b), " [internal] ") + strings.Count(string(b), " [client] ")
	}
	if got := recv.SpanCount(); got != want {
		t.Errorf("received %d spans, want %d (as the golden trees have)", got, want)
	}
}

// A replay longer than the batch processor's queue (2,048 spans), to a
// collector slower than the replay, loses no span: the processor blocks
// instead of dropping.
func TestReplayLongStreamLosesNoSpan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.ndjson")
	if err := os.WriteFile(path, synth.Stream(1000), 0o644); err != nil {
		t.Fatal(err)
	}
	recv := otlptest.StartGRPC(t)
	recv.SlowDown(200 * time.Millisecond) // 512 spans per batch: 2.5k spans/s
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_FLUSH_TIMEOUT=10s"}, nil, "replay", "--quiet", path)
	if r.exit != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.exit, r.stderr)
	}
	// 1,000 model calls with two tools each, the final answer, the session.
	if got, want := recv.SpanCount(), 1000*3+2; got != want {
		t.Errorf("received %d spans, want %d", got, want)
	}
}

func TestVersion(t *testing.T) {
	r := runBinary(t, nil, nil, "version")
	if r.exit != 0 || !strings.HasPrefix(r.stdout, "cursor-otel ") {
		t.Errorf("exit %d, stdout %q", r.exit, r.stdout)
	}
}

// `go install .` from a checkout, as the README says, gives a binary that
// names the commit it was built from.
func TestInstalledVersionNamesTheCommit(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	gobin := t.TempDir()
	install := exec.Command("go", "install", ".")
	// Go's own default, -buildvcs=auto: a Go installed from go.dev has it;
	// this machine's GOROOT/go.env says -buildvcs=false.
	install.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=-buildvcs=auto")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install .: %v\n%s", err, out)
	}
	r := runCommand(t, filepath.Join(gobin, "cursor-otel"), nil, nil, "version")
	if want := "commit " + strings.TrimSpace(string(head)); r.exit != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("version printed %q (exit %d), want it to name %q", r.stdout, r.exit, want)
	}
}

// replay --now moves recordings to the present, so that a trace viewer's
// default search (the last hour) finds them: the latest time becomes now,
// every duration and the sessions' order and distance are kept; from
// stdin too.
func TestReplayNow(t *testing.T) {
	files := []string{"examples/failed-run.ndjson", "examples/fix-failing-test.ndjson"}
	replayed := func(t *testing.T, stdin io.Reader, args ...string) []golden.Span {
		recv := otlptest.StartGRPC(t)
		r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint}, stdin, append([]string{"replay", "--quiet"}, args...)...)
		if r.exit != 0 {
			t.Fatalf("exit %d: %s", r.exit, r.stderr)
		}
		return golden.FromOTLP(recv.Spans())
	}
	sessions := func(spans []golden.Span) []golden.Span {
		var out []golden.Span
		for _, s := range spans {
			if s.Name == "invoke_agent cursor-agent" {
				out = append(out, s)
			}
		}
		slices.SortFunc(out, func(a, b golden.Span) int { return a.Start.Compare(b.Start) })
		return out
	}
	recorded := replayed(t, nil, files...)
	before := time.Now()
	moved := replayed(t, nil, append([]string{"--now"}, files...)...)
	after := time.Now()
	if golden.Render(moved) != golden.Render(recorded) {
		t.Errorf("--now changed the traces beyond their place in time")
	}
	r, m := sessions(recorded), sessions(moved)
	if len(m) != 2 || len(r) != 2 {
		t.Fatalf("%d and %d sessions", len(r), len(m))
	}
	if end := m[1].End; end.Before(before.Add(-time.Second)) || end.After(after) {
		t.Errorf("the latest session ends at %v, want about now (%v)", end, after)
	}
	if gap, want := m[1].Start.Sub(m[0].Start), r[1].Start.Sub(r[0].Start); gap != want {
		t.Errorf("the sessions are %v apart, were %v", gap, want)
	}
	if r[0].Start.After(before.Add(-24 * time.Hour)) {
		t.Errorf("the recordings are recent already (%v): the test shows nothing", r[0].Start)
	}
	data, _ := os.ReadFile(files[1])
	piped := sessions(replayed(t, bytes.NewReader(data), "--now", "-"))
	if len(piped) != 1 || piped[0].End.Before(before.Add(-time.Second)) || piped[0].End.After(time.Now()) || (piped[0].End.Sub(piped[0].Start)-31200*time.Millisecond).Abs() > time.Millisecond {
		t.Errorf("from stdin: %+v", piped)
	}
}
