package hook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/spanmap"
	"github.com/cursor-otel/cursor-otel/tracer"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	oteltrace "go.opentelemetry.io/otel/trace"
)

var t0 = time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)

// step runs the hook for one event at now, recording into dir.
func step(t *testing.T, dir string, now time.Time, event string) {
	t.Helper()
	var out strings.Builder
	if status := Run(Config{StateDir: dir, Stdin: strings.NewReader(event), Stdout: &out, Now: func() time.Time { return now }}); status != 0 {
		t.Fatalf("status %d", status)
	}
}

// build runs the builder at now, killed at the step kill names ("" for
// none).
func build(dir string, now time.Time, kill string) time.Time {
	return Build(context.Background(), BuildConfig{StateDir: dir, Getenv: func(string) string { return "" },
		Now: func() time.Time { return now }, killAt: func(step string) bool { return step == kill }})
}

// kept is what the spool holds for delivery: sessions and spans.
func kept(t *testing.T, dir string) spool.Stats {
	t.Helper()
	st, err := spool.Open(SpoolDir(settings.Settings{}, dir), 0).Stat()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// journalLeft is how many events wait in the journals.
func journalLeft(dir string) int {
	files, _ := filepath.Glob(filepath.Join(dir, journalDir, "*", "*"+entrySuffix))
	return len(files)
}

// aTurn is a turn of conv-a: its prompt, a tool, its stop.
func aTurn(t *testing.T, dir string, at time.Time, gen string) {
	t.Helper()
	c := `"conversation_id":"conv-a","generation_id":"` + gen + `"`
	step(t, dir, at, `{"hook_event_name":"beforeSubmitPrompt",`+c+`}`)
	step(t, dir, at.Add(time.Second), `{"hook_event_name":"postToolUse",`+c+`,"tool_name":"Read","tool_input":{"file_path":"x"},"tool_use_id":"t-`+gen+`","duration":5}`)
	step(t, dir, at.Add(2*time.Second), `{"hook_event_name":"stop",`+c+`,"status":"completed"}`)
}

// A turn is built a grace after its stop, whole, into the spool; a turn
// whose stop never came is closed by a build 30 minutes after its last
// event, and only then.
func TestTurnBuiltWhenClosed(t *testing.T) {
	dir := t.TempDir()
	aTurn(t, dir, t0, "g1")
	if again := build(dir, t0.Add(2*time.Second), ""); !again.Equal(t0.Add(2*time.Second + spanmap.HookGrace)) {
		t.Errorf("look again at %v; want the stop's grace's end", again)
	}
	if k := kept(t, dir); k.Spans != 0 {
		t.Fatalf("kept %d spans within the stop's grace; want none", k.Spans)
	}
	build(dir, t0.Add(time.Minute), "")
	if k := kept(t, dir); k.Sessions != 1 || k.Spans != 3 || journalLeft(dir) != 0 {
		t.Fatalf("kept %d sessions, %d spans, %d events left; want the turn whole (root, chat, tool) and the journal empty", k.Sessions, k.Spans, journalLeft(dir))
	}
	// A turn with no stop: not before 30 minutes, then whole.
	b := `"conversation_id":"conv-b","generation_id":"h1"`
	step(t, dir, t0.Add(time.Minute), `{"hook_event_name":"beforeSubmitPrompt",`+b+`}`)
	step(t, dir, t0.Add(61*time.Second), `{"hook_event_name":"postToolUse",`+b+`,"tool_name":"Read","tool_input":{"file_path":"x"},"tool_use_id":"u1","duration":5}`)
	build(dir, t0.Add(30*time.Minute), "")
	if k := kept(t, dir); k.Sessions != 1 {
		t.Fatalf("kept %d sessions 29 minutes after conv-b's last event; want conv-a's alone", k.Sessions)
	}
	build(dir, t0.Add(32*time.Minute), "")
	if k := kept(t, dir); k.Sessions != 2 || k.Spans != 6 || journalLeft(dir) != 0 {
		t.Fatalf("kept %d sessions, %d spans, %d events left; want conv-b's turn too, whole", k.Sessions, k.Spans, journalLeft(dir))
	}
}

// A build killed at any step loses no turn and keeps none twice: the
// next build finishes what it started.
func TestBuildKilledAtEachStep(t *testing.T) {
	for _, kill := range []string{"staged", "written", "published", "consumed"} {
		t.Run(kill, func(t *testing.T) {
			dir := t.TempDir()
			aTurn(t, dir, t0, "g1")
			build(dir, t0.Add(time.Minute), kill)
			build(dir, t0.Add(2*time.Minute), "")
			aTurn(t, dir, t0.Add(3*time.Minute), "g2")
			build(dir, t0.Add(4*time.Minute), "")
			if k := kept(t, dir); k.Sessions != 2 || k.Spans != 6 || k.Damaged != 0 {
				t.Errorf("kept %d sessions, %d spans, %d damaged; want both turns, once each: 2, 6, 0", k.Sessions, k.Spans, k.Damaged)
			}
			if n := journalLeft(dir); n != 0 {
				t.Errorf("%d events left in the journal", n)
			}
			staged, _ := filepath.Glob(filepath.Join(SpoolDir(settings.Settings{}, dir), ".staged-*"))
			if len(staged) != 0 {
				t.Errorf("staged parts left: %v", staged)
			}
			roots := keptRoots(t, dir)
			if len(roots) != 2 {
				t.Fatalf("%d roots kept; want 2", len(roots))
			}
			// A link names a span: its flags are not part of it.
			same := func(a, b oteltrace.SpanContext) bool { return a.TraceID() == b.TraceID() && a.SpanID() == b.SpanID() }
			for i, r := range roots {
				var links []oteltrace.SpanContext
				for _, l := range r.Links() {
					links = append(links, l.SpanContext)
				}
				switch {
				case slices.ContainsFunc(links, func(l oteltrace.SpanContext) bool { return same(l, r.SpanContext()) }):
					t.Errorf("turn %d links to itself: %v", i+1, links)
				case i == 0 && len(links) != 0:
					t.Errorf("the first turn links to %v; want nothing", links)
				case i > 0 && (len(links) != 1 || !same(links[0], roots[i-1].SpanContext())):
					t.Errorf("turn %d links to %v; want the turn before it, %v", i+1, links, roots[i-1].SpanContext())
				}
			}
		})
	}
}

// keptRoots are the roots of the turns the spool holds, oldest first,
// taken from it as a delivery takes them.
func keptRoots(t *testing.T, dir string) []sdktrace.ReadOnlySpan {
	t.Helper()
	return rootsOf(keptSpans(t, dir))
}

// rootsOf are the roots among spans, oldest first.
func rootsOf(spans []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	var roots []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if !s.Parent().IsValid() {
			roots = append(roots, s)
		}
	}
	slices.SortFunc(roots, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	return roots
}

// keptSpans are the spans the spool holds, taken from it as a delivery
// takes them.
func keptSpans(t *testing.T, dir string) []sdktrace.ReadOnlySpan {
	t.Helper()
	to, _ := tracer.Destination(func(string) string { return "" })
	var all []sdktrace.ReadOnlySpan
	send := func(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
		all = append(all, spans...)
		return nil
	}
	if _, err := spool.Open(SpoolDir(settings.Settings{}, dir), 0).Deliver(context.Background(), spool.Export{To: to, Send: send}, false); err != nil {
		t.Fatal(err)
	}
	return all
}

// Damaged state costs at most the turn it held: an event cut short, a
// checkpoint of garbage, a directory where a file should be, a lock
// that is a directory. Each is set aside and named; every later turn
// arrives.
func TestDamagedStateIsSetAside(t *testing.T) {
	dir := t.TempDir()
	aTurn(t, dir, t0, "g1")
	build(dir, t0.Add(time.Minute), "")
	name := conversationName("conv-a")
	// Damage: a checkpoint of garbage, an event cut short, a lock that
	// is a directory.
	if err := os.WriteFile(conversationFile(dir, name), []byte("{\"conversation_id\":"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(journalOf(dir, name), "00000000000000000001-1-cut"+entrySuffix), []byte(`{"at":"2026-`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, buildLock)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, buildLock), 0o700); err != nil {
		t.Fatal(err)
	}
	aTurn(t, dir, t0.Add(2*time.Minute), "g2")
	build(dir, t0.Add(3*time.Minute), "")
	if k := kept(t, dir); k.Sessions != 2 || k.Spans != 6 {
		t.Errorf("kept %d sessions, %d spans; want both turns: 2, 6", k.Sessions, k.Spans)
	}
	if aside := SetAside(dir); len(aside) != 3 {
		t.Errorf("set aside %v; want the checkpoint, the event and the lock", aside)
	}
	// A checkpoint that is a directory.
	if err := os.Remove(conversationFile(dir, name)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(conversationFile(dir, name), 0o700); err != nil {
		t.Fatal(err)
	}
	aTurn(t, dir, t0.Add(4*time.Minute), "g3")
	build(dir, t0.Add(5*time.Minute), "")
	if k := kept(t, dir); k.Sessions != 3 {
		t.Errorf("kept %d sessions; want the third turn too", k.Sessions)
	}
}

// What an earlier version kept in record files goes to the spool, for
// its own destination: today's, and a killed hook's that names none;
// another destination's waits.
func TestEarlierRecordsMoveToTheSpool(t *testing.T) {
	dir := t.TempDir()
	to, _ := tracer.Destination(func(string) string { return "" })
	today, err := spool.Open(dir, 0).ID(to)
	if err != nil {
		t.Fatal(err)
	}
	record := func(trace byte) string {
		b, err := json.Marshal(map[string]any{"trace_id": oteltrace.TraceID{trace}.String(), "span_id": oteltrace.SpanID{trace}.String(),
			"name": "invoke_agent cursor-agent", "kind": 0, "start": t0, "end": t0.Add(time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	for name, body := range map[string]string{
		"spool-" + today + ".ndjson": record(1) + "not json\n" + record(2),
		"records-4242.ndjson":        record(3),
		"spool-0123456789.ndjson":    record(4), // another destination's
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	build(dir, t0, "")
	build(dir, t0, "")
	if k := kept(t, dir); k.Sessions != 3 || k.Spans != 3 {
		t.Errorf("kept %d sessions, %d spans; want today's two and the killed hook's one, once", k.Sessions, k.Spans)
	}
	if _, err := os.Stat(filepath.Join(dir, "spool-0123456789.ndjson")); err != nil {
		t.Errorf("another destination's records: %v; want them left to wait", err)
	}
}

// A damaged spool key (cut short, or a directory in its place) is set
// aside and a new one made: the turns after it still arrive.
func TestDamagedKeyIsSetAside(t *testing.T) {
	for _, damage := range []string{"cut short", "a directory"} {
		t.Run(damage, func(t *testing.T) {
			dir := t.TempDir()
			key := filepath.Join(SpoolDir(settings.Settings{}, dir), "destination.key")
			if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
				t.Fatal(err)
			}
			var err error
			if damage == "cut short" {
				err = os.WriteFile(key, []byte("12345"), 0o600)
			} else {
				err = os.Mkdir(key, 0o700)
			}
			if err != nil {
				t.Fatal(err)
			}
			aTurn(t, dir, t0, "g1")
			build(dir, t0.Add(time.Minute), "")
			if k := kept(t, dir); k.Sessions != 1 || k.Spans != 3 {
				t.Errorf("kept %d sessions, %d spans; want the turn", k.Sessions, k.Spans)
			}
		})
	}
}
