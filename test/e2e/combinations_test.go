//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/proctest"
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// The combination suite: every mode a user meets, under every install
// shape, with whatever the spool holds and whatever the collector does.
// Each feature passes its own tests; these cells are where they meet.
// go test ./... runs the cells most likely to break (every mode under
// every shape with sessions kept and the collector down: what starts
// background deliveries; and the spool holding another collector's
// sessions); -tags combinations runs every cell (.ci/run does).

// A shape is how cursor-otel is installed: install lays it out in dir and
// returns the program a user's agent run starts (dropIn) and the one that
// runs cursor-otel's own commands (own).
type shape struct {
	name    string
	install func(t *testing.T, dir string) (dropIn, own string)
	// moved: the drop-in is moved to another directory while the agent
	// runs (an upgrade, a cleanup), and own commands run from there.
	moved bool
}

// A mode is what the user runs.
type mode struct {
	name string
	// run runs it, as the user would, and says what the user must see.
	run func(t *testing.T, c *cell) result
	// agentArgs are the arguments the agent must run with, once; nil: the
	// agent must not run at all.
	agentArgs []string
	// delivers: it starts delivering what is kept for its collector.
	delivers bool
	// redirects: it sends what is kept for another collector to its own.
	redirects bool
	// sessions: the traces the user's run makes, at most (0: one); an
	// editor conversation makes one a turn.
	sessions int
	// variant: a variant of another mode's input: it runs under two
	// shapes (the other mode meets every shape), and go test ./... runs
	// it with the collector up too.
	variant bool
	// acp: the real agent is the stand-in ACP agent, driven by an editor.
	acp bool
}

// The spool's state before the user's run.
type spoolState string

const (
	spoolEmpty spoolState = "spool empty"
	spoolHere  spoolState = "kept for this collector"
	// Kept for this collector under another spelling of its settings
	// (scheme in capitals, a trailing slash, the signal's own variable,
	// headers in another order and case): the same destination.
	spoolSpelled spoolState = "kept for this collector written another way"
	spoolOther   spoolState = "kept for another collector"
	// spoolTight: a session kept for this collector, and a bound with
	// room for it and little more: a user's session is too large to keep.
	spoolTight spoolState = "kept, bound nearly full"
)

// What the collector does.
const (
	collUp       = "up"
	collDown     = "down"
	collHanging  = "hanging"
	collRefusing = "refusing"
	// collLate answers every export, after the flush timeout (1.5 s
	// against 1 s), within the export timeout.
	collLate = "late"
)

var (
	spoolStates = []spoolState{spoolEmpty, spoolHere, spoolSpelled, spoolOther, spoolTight}
	collectors  = []string{collUp, collDown, collHanging, collRefusing, collLate}
)

// takes says the collector takes what a delivery sends it.
func takes(coll string) bool { return coll == collUp || coll == collLate }

// holdsHere says the spool holds a session kept for this collector,
// however its settings were written.
func holdsHere(sp spoolState) bool { return sp == spoolHere || sp == spoolTight || sp == spoolSpelled }

// copyBinary copies cursor-otel to path, as a user's cp or installer does.
// It writes with the fork lock held, so that no process a parallel test
// starts meanwhile inherits the file open for writing, which would make
// running it fail with "text file busy" (go.dev/issue/22315).
func copyBinary(t *testing.T, path string) {
	t.Helper()
	copyFile(t, binary, path, 0o755)
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// asAgent installs cursor-otel and, beside it, name as a link or a copy.
func asAgent(name string, link bool) func(*testing.T, string) (string, string) {
	return func(t *testing.T, dir string) (string, string) {
		own, drop := filepath.Join(dir, "cursor-otel"), filepath.Join(dir, name)
		copyBinary(t, own)
		if link {
			symlink(t, "cursor-otel", drop)
		} else {
			copyBinary(t, drop)
		}
		return drop, own
	}
}

var shapes = []shape{
	{name: "cursor-otel", install: func(t *testing.T, dir string) (string, string) {
		own := filepath.Join(dir, "cursor-otel")
		copyBinary(t, own)
		return own, own
	}},
	{name: "cursor-agent symlink", install: asAgent("cursor-agent", true)},
	{name: "cursor-agent copy", install: asAgent("cursor-agent", false)},
	{name: "agent symlink", install: asAgent("agent", true)},
	{name: "agent copy", install: asAgent("agent", false)},
	{name: "renamed", install: func(t *testing.T, dir string) (string, string) {
		own := filepath.Join(dir, "otel-wrap")
		copyBinary(t, own)
		return own, own
	}},
	{name: "moved", moved: true, install: asAgent("cursor-agent", false)},
	// As scripts/install-action.sh lays it out on a Linux or macOS
	// runner: cursor-otel, and cursor-agent and agent linked to it.
	{name: "action", install: func(t *testing.T, dir string) (string, string) {
		own := filepath.Join(dir, "cursor-otel")
		copyBinary(t, own)
		symlink(t, "cursor-otel", filepath.Join(dir, "cursor-agent"))
		symlink(t, "cursor-otel", filepath.Join(dir, "agent"))
		return filepath.Join(dir, "cursor-agent"), own
	}},
}

var userArgs = []string{"-p", "--output-format", "stream-json", "fix the failing test"}

var modes = []mode{
	{name: "wrap", agentArgs: userArgs, delivers: true, run: func(t *testing.T, c *cell) result {
		r := c.start(t, c.dropIn, nil, userArgs...)
		want, _ := os.ReadFile("examples/fix-failing-test.ndjson")
		if r.stdout != string(want) || r.exit != 0 {
			t.Errorf("stdout the agent's: %v (%d bytes), exit %d; want the agent's, byte for byte, and 0", r.stdout == string(want), len(r.stdout), r.exit)
		}
		return r
	}},
	{name: "untraced subcommand", agentArgs: []string{"status"}, run: func(t *testing.T, c *cell) result {
		r := c.start(t, c.dropIn, []string{"FAKEAGENT_STREAM="}, "status")
		if r.stdout != "fakeagent status\n" || r.exit != 0 || r.stderr != "" {
			t.Errorf("stdout %q, exit %d, stderr %q; want the agent's own, 0, and nothing of cursor-otel's", r.stdout, r.exit, r.stderr)
		}
		return r
	}},
	{name: "replay", delivers: true, run: func(t *testing.T, c *cell) result {
		// --keep: kept as a wrapped run's session is, for the spool's cells.
		r := c.start(t, c.own, nil, "replay", "--quiet", "--keep", "examples/fix-failing-test.ndjson")
		want := 1 // a collector the user named did not take the trace
		if c.collector == collUp {
			want = 0
		}
		if r.exit != want || r.stdout != "" {
			t.Errorf("exit %d, stdout %q; want %d and nothing", r.exit, r.stdout, want)
		}
		return r
	}},
	// Each turn's --summary-json report, given on the hook's command line
	// as hooks.json gives it, whatever the collector does.
	{name: "hook", delivers: true, sessions: 2, run: func(t *testing.T, c *cell) result {
		reports := filepath.Join(c.dir, "runs.jsonl")
		r := c.hooks(t, hookEvents(t), map[string]int{"conv-7c1e": 2}, "--summary-json", reports)
		checkCellReports(t, reports, "conv-7c1e", 2)
		return r
	}},
	// An editor conversation that never ends (no sessionEnd), one of its
	// turns without stop: each turn a whole trace all the same.
	{name: "hook, no stop, no sessionEnd", delivers: true, sessions: 3, variant: true, run: func(t *testing.T, c *cell) result {
		return c.hooks(t, scriptedConversation("conv-open", 3, 2, false), map[string]int{"conv-open": 3})
	}},
	// Two conversations at once, their events interleaved.
	{name: "hook, two conversations", delivers: true, sessions: 4, variant: true, run: func(t *testing.T, c *cell) result {
		a, b := scriptedConversation("conv-a", 2, 0, true), scriptedConversation("conv-b", 2, 1, false)
		var events []string
		for i := range max(len(a), len(b)) {
			if i < len(a) {
				events = append(events, a[i])
			}
			if i < len(b) {
				events = append(events, b[i])
			}
		}
		return c.hooks(t, events, map[string]int{"conv-a": 2, "conv-b": 2})
	}},
	// A conversation as Cursor runs its hooks at its most hostile: a
	// turn's after-hooks before its before-hooks, the next turn's stop
	// before its after-hooks, and a hook process killed as it runs.
	{name: "hook, reordered and killed", delivers: true, sessions: 2, variant: true, run: func(t *testing.T, c *cell) result {
		var events []string
		for n, order := range []string{"after-first", "stop-first"} {
			prompt, pres, posts, stop := parallelTurn("conv-hostile", n, 3)
			events = append(events, prompt)
			switch order {
			case "after-first":
				events = append(append(append(events, posts...), pres...), stop)
			default:
				events = append(append(append(events, pres...), stop), posts...)
			}
		}
		events = append(events, `{"hook_event_name":"sessionEnd","conversation_id":"conv-hostile","reason":"completed"}`)
		// A copy of an event, its process killed as it runs: recorded
		// or not, it changes nothing.
		c.killedHook(t, events[2], 2*time.Millisecond)
		return c.hooks(t, events, map[string]int{"conv-hostile": 2})
	}},
	{name: "flush", delivers: true, run: func(t *testing.T, c *cell) result {
		r := c.start(t, c.own, nil, "flush")
		failing := holdsHere(c.spool) && !takes(c.collector)
		switch {
		case failing && r.exit != 1, !failing && r.exit != 0:
			t.Errorf("exit %d (%s, collector %s); stdout %q stderr %q", r.exit, c.spool, c.collector, r.stdout, r.stderr)
		case c.spool == spoolOther && !strings.Contains(r.stdout, "kept for "+otherCollector.Shown()+" with other values of authorization, no x-tenant (set today) waits for that collector"):
			t.Errorf("stdout %q: want how many sessions wait, and for which address", r.stdout)
		case holdsHere(c.spool) && takes(c.collector) && !strings.Contains(r.stdout, "delivered 1 session (3 spans)"):
			t.Errorf("stdout %q: want the kept session delivered", r.stdout)
		}
		return r
	}},
	{name: "flush --redirect", delivers: true, redirects: true, run: func(t *testing.T, c *cell) result {
		r := c.start(t, c.own, nil, "flush", "--redirect")
		failing := c.spool != spoolEmpty && !takes(c.collector)
		if failing && r.exit != 1 || !failing && r.exit != 0 {
			t.Errorf("exit %d (%s, collector %s); stdout %q stderr %q", r.exit, c.spool, c.collector, r.stdout, r.stderr)
		}
		return r
	}},
	{name: "compare", run: func(t *testing.T, c *cell) result {
		r := c.start(t, c.own, nil, "compare", "examples/fix-failing-test.ndjson", "examples/failed-run.ndjson")
		if r.exit != 0 || !strings.Contains(r.stdout, "|") {
			t.Errorf("exit %d, stdout %q; want 0 and a table", r.exit, r.stdout)
		}
		return r
	}},
}

// hooks runs a hook process an event, as Cursor does, each answering at
// once; with the collector up, each conversation's turns arrive as whole
// traces (roots says how many; a conversation's end is no trace of its
// own, and no other root appears), linked in order, no span without its
// parent.
func (c *cell) hooks(t *testing.T, events []string, roots map[string]int, flags ...string) result {
	t.Helper()
	var last result
	for _, line := range events {
		last = c.start(t, c.own, []string{"STDIN=" + line}, append([]string{"hook"}, flags...)...)
		if last.exit != 0 || last.stderr != "" || !strings.HasPrefix(last.stdout, "{") {
			t.Errorf("hook: exit %d, stdout %q, stderr %q; want 0, an answer, nothing on stderr", last.exit, last.stdout, last.stderr)
		}
	}
	if c.collector != collUp {
		return last
	}
	want := 0
	for _, n := range roots {
		want += n
	}
	turnsOf := func() map[string][]golden.Span {
		by := map[string][]golden.Span{}
		for _, s := range golden.FromOTLP(c.recv.Spans()) {
			if s.TraceID != c.keptTrace {
				by[value(s, "gen_ai.conversation.id")] = append(by[value(s, "gen_ai.conversation.id")], s)
			}
		}
		return by
	}
	got := 0
	for deadline := time.Now().Add(20 * time.Second); got < want && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) { // polling the receiver: delivery runs on its own
		got = 0
		for _, spans := range turnsOf() {
			got += len(turnRoots(t, spans))
		}
	}
	for conv, spans := range turnsOf() {
		checkTurns(t, conv, spans, roots[conv])
	}
	return last
}

// otherCollector is where the sessions of spoolOther were going.
var otherCollector = spool.Destination{Address: "https://otlp.other-client.example:4317", Protocol: "grpc",
	Headers: map[string]string{"authorization": "Bearer other client's credentials"}}

// A cell is one mode, under one shape, with one spool and one collector.
type cell struct {
	mode      mode
	shape     shape
	spool     spoolState
	collector string

	id           string
	dir          string // the cell's own files
	dropIn, own  string
	env          []string
	runs         string // the stand-in agent's runs, a line each
	recv         *otlptest.Receiver
	keptTrace    string // the session kept before the run
	bound        int64  // CURSOR_OTEL_SPOOL_MAX, for spoolTight
	realAgentDir string
}

var cellCount atomic.Int64

// runCell runs one cell and checks what users rely on.
func runCell(t *testing.T, m mode, sh shape, sp spoolState, coll string) {
	c := &cell{mode: m, shape: sh, spool: sp, collector: coll, dir: t.TempDir()}
	c.id = fmt.Sprintf("cell-%d-%d", os.Getpid(), cellCount.Add(1))
	t.Cleanup(func() { killCell(c.id) })
	c.setUp(t)
	r := m.run(t, c)
	c.checkDropsSaid(t, r)

	// Nothing cursor-otel starts outlives its bound: with an export
	// timeout of 1 s, a background delivery is done within seconds.
	left := waitForCell(c.id, 20*time.Second)
	if len(left) > 0 {
		t.Errorf("%d processes of cursor-otel's still alive 20 s after the user's run: %v", len(left), left)
	}
	if c.collector == collLate {
		// A later delivery: what the run sent, and the collector took
		// after the flush timeout, must not go again.
		c.start(t, c.own, nil, "flush")
		waitForCell(c.id, 20*time.Second)
	}
	c.checkAgentRuns(t)
	c.checkDelivery(t)
}

// setUp installs the shape, starts the collector and fills the spool.
func (c *cell) setUp(t *testing.T) {
	inst := filepath.Join(c.dir, "bin")
	c.realAgentDir = filepath.Join(c.dir, "real")
	for _, d := range []string{inst, c.realAgentDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c.dropIn, c.own = c.shape.install(t, inst)
	real := fakeAgent
	if c.mode.acp {
		real = fakeACP
	}
	for _, name := range []string{"cursor-agent", "agent"} {
		symlink(t, real, filepath.Join(c.realAgentDir, name))
	}
	if c.shape.moved {
		// The real agent moves the drop-in away as it starts: a user's
		// upgrade or cleanup while the run goes on.
		moveTo := filepath.Join(c.dir, "moved")
		if err := os.Mkdir(moveTo, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"cursor-agent", "agent"} {
			script := fmt.Sprintf("#!/bin/sh\n[ -e %q ] && mv %q %q\nexec %q \"$@\"\n", c.dropIn, c.dropIn, moveTo, real)
			path := filepath.Join(c.realAgentDir, name)
			_ = os.Remove(path)
			if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if c.mode.agentArgs == nil {
			// Moved before the run: own commands start from where it is now.
			moved := filepath.Join(moveTo, filepath.Base(c.own))
			if err := os.Rename(c.own, moved); err != nil {
				t.Fatal(err)
			}
			c.own = moved
		}
	}

	var endpoint string
	switch c.collector {
	case collUp, collRefusing:
		c.recv = otlptest.StartGRPC(t)
		endpoint = c.recv.Endpoint
		if c.collector == collRefusing {
			c.recv.Refuse(status.Error(codes.PermissionDenied, "this token may not write here"))
		}
	case collLate:
		c.recv = otlptest.StartGRPC(t)
		c.recv.SlowDown(1500 * time.Millisecond)
		endpoint = c.recv.Endpoint
	case collDown:
		endpoint = otlptest.Down(t)
	case collHanging:
		endpoint = otlptest.Hanging(t)
	}
	c.runs = filepath.Join(c.dir, "agent-runs")
	spoolDir := filepath.Join(c.dir, "state", "spool")
	c.env = []string{
		"PATH=" + strings.Join([]string{inst, c.realAgentDir, "/usr/bin", "/bin"}, string(os.PathListSeparator)),
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint, "OTEL_EXPORTER_OTLP_HEADERS=" + cellHeaders,
		"OTEL_EXPORTER_OTLP_TIMEOUT=1000", "OTEL_METRICS_EXPORTER=none",
		"CURSOR_OTEL_FLUSH_TIMEOUT=1s", "CURSOR_OTEL_SPOOL=" + spoolDir,
		"CURSOR_OTEL_STATE_DIR=" + filepath.Join(c.dir, "state", "hooks"), "XDG_STATE_HOME=" + filepath.Join(c.dir, "xdg"),
		"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "FAKEAGENT_SPEED=1000000", "FAKEAGENT_RUNS=" + c.runs,
		cellMarker + "=" + c.id,
	}
	if c.collector == collLate {
		c.env = append(c.env, "OTEL_EXPORTER_OTLP_TIMEOUT=4000") // it answers; after the flush timeout
	}
	switch c.spool {
	case spoolHere, spoolTight:
		to, ok := tracer.Destination(lookup(c.env))
		if !ok {
			t.Fatal("no destination for the cell's settings")
		}
		c.keptTrace = keepSession(t, spoolDir, to, 0xa1)
		if c.spool == spoolTight {
			st, err := spool.Open(spoolDir, 0).Stat()
			if err != nil {
				t.Fatal(err)
			}
			c.bound = st.Bytes + 1024 // the example's session weighs several times more
			c.env = append(c.env, fmt.Sprintf("CURSOR_OTEL_SPOOL_MAX=%d", c.bound))
		}
	case spoolSpelled:
		to, ok := tracer.Destination(lookup(respelled(c.env)))
		if !ok {
			t.Fatal("no destination for the cell's settings written another way")
		}
		c.keptTrace = keepSession(t, spoolDir, to, 0xa2)
	case spoolOther:
		c.keptTrace = keepSession(t, spoolDir, otherCollector, 0xb2)
	}
}

// cellHeaders are the headers every cell's runs send, as the user wrote them.
const cellHeaders = "x-tenant=team,authorization=Bearer%20cell-token"

// respelled is the cell's settings written another way, for the same
// collector and request: the scheme in capitals, a trailing slash, the
// signal's own variable, the headers in another order, their names in
// capitals, spaces around them, a value percent-encoded.
func respelled(env []string) []string {
	var out []string
	for _, kv := range env {
		switch k, v, _ := strings.Cut(kv, "="); k {
		case "OTEL_EXPORTER_OTLP_ENDPOINT":
			out = append(out, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=HTTP://"+strings.TrimPrefix(v, "http://")+"/")
		case "OTEL_EXPORTER_OTLP_HEADERS":
			out = append(out, "OTEL_EXPORTER_OTLP_HEADERS= Authorization = Bearer%20cell-token , X-TENANT=%74eam")
		default:
			out = append(out, kv)
		}
	}
	return out
}

// cellMarker marks every process a cell starts, and every process those
// start, through the environment they inherit.
const cellMarker = "CURSOR_OTEL_TEST_CELL"

// start runs program as the user does, bounded; env adds to the cell's,
// and STDIN=text is given on stdin.
func (c *cell) start(t *testing.T, program string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(program, args...)
	all := slices.Clone(c.env)
	for _, kv := range env {
		if text, ok := strings.CutPrefix(kv, "STDIN="); ok {
			cmd.Stdin = strings.NewReader(text + "\n")
			continue
		}
		all = append(all, kv)
	}
	cmd.Env = withBaseEnv(t, all)
	return runStarted(t, cmd, func() { proctest.Start(t, cmd, 30*time.Second) })
}

// killedHook runs a hook process for event and kills it (SIGKILL)
// after a while.
func (c *cell) killedHook(t *testing.T, event string, after time.Duration) {
	t.Helper()
	cmd := exec.Command(c.own, "hook")
	cmd.Stdin = strings.NewReader(event + "\n")
	cmd.Env = withBaseEnv(t, c.env)
	proctest.Start(t, cmd, 30*time.Second)
	time.AfterFunc(after, func() { _ = cmd.Process.Kill() })
	_ = cmd.Wait()
}

// keepSession writes a session of three spans to the spool, kept for to,
// as an earlier run would have; it returns its trace ID.
func keepSession(t *testing.T, dir string, to spool.Destination, id byte) string {
	t.Helper()
	tid := trace.TraceID{id, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	root := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{id, 1}, TraceFlags: trace.FlagsSampled})
	start := time.Now().Add(-time.Hour)
	var spans []sdktrace.ReadOnlySpan
	for i := range 2 {
		spans = append(spans, tracetest.SpanStub{
			Name:        "execute_tool shell",
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{id, 2, byte(i)}, TraceFlags: trace.FlagsSampled}),
			Parent:      root, StartTime: start, EndTime: start.Add(time.Second),
			Attributes: []attribute.KeyValue{attribute.String("gen_ai.tool.name", "shell")},
		}.Snapshot())
	}
	spans = append(spans, tracetest.SpanStub{Name: "invoke_agent cursor-agent", SpanContext: root,
		StartTime: start, EndTime: start.Add(time.Minute)}.Snapshot())
	if _, err := spool.Open(dir, 0).Keep(to, spans); err != nil {
		t.Fatal(err)
	}
	return tid.String()
}

// checkAgentRuns: the agent ran exactly once per user run, with the
// user's arguments, or not at all.
func (c *cell) checkAgentRuns(t *testing.T) {
	t.Helper()
	var runs [][]string
	if f, err := os.Open(c.runs); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var args []string
			_ = json.Unmarshal(sc.Bytes(), &args)
			runs = append(runs, args)
		}
		f.Close()
	}
	switch {
	case c.mode.agentArgs == nil && len(runs) > 0:
		t.Errorf("the agent ran %d times, first with %q; want never", len(runs), runs[0])
	case c.mode.agentArgs != nil && len(runs) != 1:
		t.Errorf("the agent ran %d times (%q); want once", len(runs), runs)
	case c.mode.agentArgs != nil && !slices.Equal(runs[0], c.mode.agentArgs):
		t.Errorf("the agent ran with %q; want the user's %q", runs[0], c.mode.agentArgs)
	}
}

// checkDelivery: no span twice; a session kept for another collector
// never arrives here, and is still kept; one kept for this collector
// arrives, once, when the mode delivers and the collector takes it.
func (c *cell) checkDelivery(t *testing.T) {
	t.Helper()
	if c.recv != nil {
		spans := golden.FromOTLP(c.recv.Spans())
		noSpanTwice(t, spans)
		kept := 0
		for _, s := range spans {
			if s.TraceID == c.keptTrace {
				kept++
			}
		}
		switch {
		case c.mode.redirects && c.spool != spoolEmpty && c.collector == collUp && kept != 3:
			t.Errorf("%d spans of the kept session arrived; --redirect asks for its 3", kept)
		case c.mode.redirects:
		case c.spool == spoolOther && kept > 0:
			t.Errorf("%d spans of a session kept for %s arrived at this collector", kept, otherCollector.Address)
		case holdsHere(c.spool) && takes(c.collector) && c.mode.delivers && kept != 3:
			t.Errorf("%d spans of the kept session arrived; want its 3", kept)
		}
	}
	dir := filepath.Join(c.dir, "state", "spool")
	if c.spool == spoolOther && !c.mode.redirects && !spool.Open(dir, 0).HasKept(otherCollector) {
		t.Errorf("the session kept for %s is no longer kept", otherCollector.Address)
	}
	// What cursor-otel does for itself is never kept as a session: at
	// most the one kept before and the user's own.
	st, err := spool.Open(dir, 0).Stat()
	if err != nil || st.Sessions > 1+max(1, c.mode.sessions) {
		t.Errorf("%d sessions kept (%v); want at most the one kept before and the user's %d", st.Sessions, err, max(1, c.mode.sessions))
	}
	if c.spool == spoolTight && st.Bytes > c.bound {
		t.Errorf("the spool holds %d bytes, over its bound of %d", st.Bytes, c.bound)
	}
}

// checkDropsSaid: a user's session too large for a nearly full spool is
// said to be dropped, never to be kept, by the run that dropped it (wrap
// and replay say what the collector did not take).
func (c *cell) checkDropsSaid(t *testing.T, r result) {
	t.Helper()
	if c.spool != spoolTight || c.collector == collUp || (c.mode.name != "wrap" && c.mode.name != "replay") {
		return
	}
	switch {
	case strings.Contains(r.stderr, "kept in"):
		t.Errorf("stderr %q: says kept, for a session too large to keep", r.stderr)
	case !strings.Contains(r.stderr, "dropped: larger than the spool's bound"):
		t.Errorf("stderr %q: want the session said dropped as too large", r.stderr)
	}
}

// lookup reads an environment list as os.Getenv reads the process's.
func lookup(env []string) func(string) string {
	return func(key string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], key+"="); ok {
				return v
			}
		}
		return ""
	}
}

// cellProcesses are the processes alive with the cell's mark in their
// environment, whoever started them and wherever they went (a detached
// delivery is no descendant of the run that started it).
func cellProcesses(id string) []int {
	mark := []byte(cellMarker + "=" + id + "\x00")
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(env, mark) {
			out = append(out, pid)
		}
	}
	return out
}

// waitForCell waits, polling, until no process of the cell is alive, or
// within passes; it returns those still alive.
func waitForCell(id string, within time.Duration) []int {
	deadline := time.Now().Add(within)
	for {
		alive := cellProcesses(id)
		if len(alive) == 0 || time.Now().After(deadline) {
			return alive
		}
		time.Sleep(20 * time.Millisecond) // polling the process table
	}
}

// killCell ends whatever of the cell is still alive, detached or not.
func killCell(id string) {
	for range 3 {
		pids := cellProcesses(id)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
		time.Sleep(50 * time.Millisecond) // letting the killed go before looking again
	}
}

// The cells go test ./... runs: every mode under every shape with a
// session kept for this collector and the collector down (what starts a
// background delivery, which must never reach the agent), and every mode
// under two shapes with another collector's session kept and this one
// up; and wrap under a cursor-agent copy in every spool and collector
// state.
func TestCombinations(t *testing.T) {
	if testing.Short() {
		t.Skip("the combination suite starts hundreds of processes")
	}
	seen := map[string]bool{}
	run := func(m mode, sh shape, sp spoolState, coll string) {
		name := strings.Join([]string{m.name, sh.name, string(sp), "collector " + coll}, "/")
		if seen[name] {
			return
		}
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runCell(t, m, sh, sp, coll)
		})
	}
	for _, m := range modes {
		for _, sh := range shapes {
			two := sh.name == "cursor-otel" || sh.name == "cursor-agent copy"
			if m.variant && !two {
				continue // its mode meets every shape
			}
			if allCombinations {
				for _, sp := range spoolStates {
					for _, coll := range collectors {
						run(m, sh, sp, coll)
					}
				}
				continue
			}
			run(m, sh, spoolHere, collDown)
			if two {
				run(m, sh, spoolOther, collUp)
			}
			if m.variant && sh.name == "cursor-otel" {
				run(m, sh, spoolEmpty, collUp)
			}
			if sh.name == "cursor-otel" {
				run(m, sh, spoolSpelled, collUp)
			}
		}
	}
	for _, sp := range spoolStates {
		for _, coll := range collectors {
			run(modes[0], shapes[2], sp, coll)
		}
	}
}

// checkCellReports waits for a conversation's turn reports (one JSON
// line each, written by whichever process builds the turns) and checks
// there are turns of them, each naming the conversation.
func checkCellReports(t *testing.T, path, conversation string, turns int) {
	t.Helper()
	var sessions []string
	for deadline := time.Now().Add(20 * time.Second); len(sessions) < turns && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) { // polling: the background delivery writes them
		sessions = nil
		b, _ := os.ReadFile(path)
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r struct {
				Session string          `json:"session_id"`
				End     json.RawMessage `json:"session_end"`
			}
			if json.Unmarshal([]byte(line), &r) == nil && r.End == nil { // a conversation's end is no turn
				sessions = append(sessions, r.Session)
			}
		}
	}
	if len(sessions) != turns || slices.ContainsFunc(sessions, func(s string) bool { return s != conversation }) {
		t.Errorf("--summary-json has reports for %v; want %d, each of %s", sessions, turns, conversation)
	}
}
