package summary

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/parse"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// replayed replays a recording through the span model: its spans.
func replayed(t *testing.T, path string) []sdktrace.ReadOnlySpan {
	t.Helper()
	return replayedWith(t, path, spanmap.Options{})
}

// replayedWith replays a recording with the span model's options given.
func replayedWith(t *testing.T, path string, opts spanmap.Options) []sdktrace.ReadOnlySpan {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(spanmap.NewIDGenerator()), sdktrace.WithSyncer(exp))
	opts.Now = func() time.Time { return time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC) }
	rec := spanmap.NewStream(context.Background(), tp.Tracer("test"), opts)
	dec := parse.NewDecoder(f)
	for ev, err := dec.Next(); err != io.EOF; ev, err = dec.Next() {
		rec.Record(ev, time.Time{})
	}
	rec.Finish(spanmap.End{})
	return exp.GetSpans().Snapshots()
}

// reports replays a recording through the span model and summarises each
// session.
func reports(t *testing.T, path string) []Report {
	t.Helper()
	byTrace := map[string][]sdktrace.ReadOnlySpan{}
	var order []string
	for _, s := range replayed(t, path) {
		id := s.SpanContext().TraceID().String()
		if byTrace[id] == nil {
			order = append(order, id)
		}
		byTrace[id] = append(byTrace[id], s)
	}
	var out []Report
	for _, id := range order {
		if r, ok := FromTrace(byTrace[id]); ok {
			out = append(out, r)
		}
	}
	return out
}

// The split of examples/parallel-tools.ndjson, worked out by hand from its
// timestamps: three shell calls overlap from +3 ms to +14.920 s of its
// 16.66 s of timestamps; its result says the agent ran 19.4 s, so the
// session, and its first model call, begin 2.74 s before the first
// timestamp (1743 + 2740 ms of model time).
func TestSplitWithParallelTools(t *testing.T) {
	r := reports(t, "../../examples/parallel-tools.ndjson")[0]
	want := Split{ModelMs: 4483, ThinkingMs: 660, ToolsMs: 14917, IdleMs: 0, ReconnectingMs: 1100}
	if diff := cmp.Diff(want, r.Split); diff != "" || r.WallMs != 19400 {
		t.Errorf("wall %d ms, split (-want +got):\n%s", r.WallMs, diff)
	}
	shell := ToolKind{Name: "shell", Count: 3, TotalMs: 5397 + 14877 + 11467, P50Ms: 11467, MaxMs: 14877}
	if diff := cmp.Diff([]ToolKind{shell}, r.ToolKinds); diff != "" {
		t.Errorf("tool kinds (-want +got):\n%s", diff)
	}
	if r.Retries != 1 || len(r.Failed) != 1 || r.Failed[0].Subject != "npm test --prefix web" {
		t.Errorf("retries %d, failed %+v", r.Retries, r.Failed)
	}
}

// parallel-sleep: sleep 6 and sleep 4 overlap; the tool time is 6.197 s,
// not the 10.359 s their durations add up to. The agent ran 13.039 s (its
// duration_ms): the 6.842 s before the first timestamp are the first model
// call's.
func TestSplitRealParallelSleep(t *testing.T) {
	path := "../../../shared/fixtures/real/parallel-sleep.ndjson"
	if _, err := os.Stat(path); err != nil {
		t.Skip("../shared/fixtures/real not present")
	}
	r := reports(t, path)[0]
	if r.WallMs != 13039 || r.Split.ToolsMs != 6197 || r.Split.ModelMs != 6842 || r.Split.IdleMs != 0 {
		t.Errorf("wall %d, split %+v", r.WallMs, r.Split)
	}
	if r.ToolKinds[0].TotalMs != 10359 || r.ToolKinds[0].Count != 2 {
		t.Errorf("shell: %+v, want 2 calls, 10359 ms", r.ToolKinds[0])
	}
}

func TestReportFacts(t *testing.T) {
	r := reports(t, "../../examples/fix-failing-test.ndjson")[0]
	// Input tokens count the cache: 48210 fresh + 39002 read + 6120 written.
	if r.Outcome != "success" || r.Model != "Claude 4.5 Sonnet" || r.Tokens == nil || r.Tokens.Input != 93332 || len(r.ModelCalls) != 5 {
		t.Errorf("outcome %s, model %q, tokens %+v, %d model calls", r.Outcome, r.Model, r.Tokens, len(r.ModelCalls))
	}
	// At claude-sonnet-4-5's $3 / $15 / $0.30 / $3.75: 0.14463 + 0.0117006 + 0.02295 + 0.02814.
	if r.CostUSD == nil || math.Abs(*r.CostUSD-0.2074206) > 1e-9 || r.Pricing != "genai-prices 2026-08-21" || r.PricedAs != "claude-sonnet-4-5" {
		t.Errorf("cost %v from %q as %q, want $0.2074206 from genai-prices as claude-sonnet-4-5", r.CostUSD, r.Pricing, r.PricedAs)
	}
	if ft := r.ModelCalls[1].FirstTokenMs; ft == nil || *ft != 640 {
		t.Errorf("second model call's time to first token %v, want 640", ft)
	}
	if s := r.Slowest[0]; s.Name != "shell" || s.DurationMs != 9148 || s.Subject != "go test ./pkg/queue" || *s.ExitCode != 1 {
		t.Errorf("slowest %+v", s)
	}
	failed := reports(t, "../../examples/failed-run.ndjson")[0]
	if failed.Outcome != "error" || failed.Error != "Model request failed: upstream timeout after 30s" || len(failed.Failed) != 2 {
		t.Errorf("failed run: %s %q, %d failed tool calls", failed.Outcome, failed.Error, len(failed.Failed))
	}
}

// Whatever the stream, the split adds up to the wall time, no part is
// negative, and the per-kind totals are the tool spans' durations.
func TestReportInvariants(t *testing.T) {
	paths, _ := filepath.Glob("../../examples/*.ndjson")
	more, _ := filepath.Glob("../../spanmap/testdata/streams/*.ndjson")
	real, _ := filepath.Glob("../../../shared/fixtures/real/*.ndjson")
	for _, p := range append(append(paths, more...), real...) {
		for _, r := range reports(t, p) {
			s := r.Split
			if s.ModelMs+s.ToolsMs+s.IdleMs != r.WallMs || s.ModelMs < 0 || s.ToolsMs < 0 || s.IdleMs < 0 {
				t.Errorf("%s: split %+v does not add up to %d", p, s, r.WallMs)
			}
			var kinds, calls int64
			for _, k := range r.ToolKinds {
				kinds += k.TotalMs
			}
			for _, c := range r.ToolCalls {
				calls += c.DurationMs
			}
			if kinds != calls {
				t.Errorf("%s: tool kinds total %d ms, tool calls %d ms", p, kinds, calls)
			}
		}
	}
}

var traceID = regexp.MustCompile(`[0-9a-f]{32}`)

func TestMarkdownGolden(t *testing.T) {
	paths, _ := filepath.Glob("../../examples/*.ndjson")
	if real := "../../../shared/fixtures/real/parallel-sleep.ndjson"; fileExists(real) {
		paths = append(paths, real)
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".ndjson")
		t.Run(name, func(t *testing.T) {
			r := reports(t, p)[0]
			r.TraceURL = "http://localhost:16686/trace/" + r.TraceID
			got := traceID.ReplaceAllString(r.Markdown(), "<trace-id>")
			golden.Check(t, filepath.Join("testdata", name+".md"), got, *update)
			var back Report
			if err := json.Unmarshal(r.JSON(), &back); err != nil || back.Split != r.Split || back.WallMs != r.WallMs {
				t.Errorf("JSON round trip: %v, %+v", err, back.Split)
			}
		})
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// A report whose spans lie outside the session's time still renders.
func TestWaterfallOutsideTheSession(t *testing.T) {
	r := Report{WallMs: 1000, ModelCalls: []ModelCall{{StartMs: -5000, DurationMs: 100}, {StartMs: 900, DurationMs: 9000}}}
	r.ToolCalls = []ToolCall{{Name: "shell", StartMs: -4000, DurationMs: 10}, {Name: "read", StartMs: 2000, DurationMs: 5}}
	if md := r.Markdown(); !strings.Contains(md, "model call") {
		t.Errorf("no waterfall in:\n%s", md)
	}
}

// A report file of several sessions ends with their total cost.
func TestFilesTotal(t *testing.T) {
	md := filepath.Join(t.TempDir(), "summary.md")
	files := &Files{Markdown: md}
	for _, path := range []string{"../../examples/fix-failing-test.ndjson", "../../examples/parallel-tools.ndjson", "../../examples/failed-run.ndjson"} {
		r, ok := FromTrace(replayed(t, path))
		if !ok {
			t.Fatalf("%s: no session", path)
		}
		files.Write(r)
	}
	files.Finish()
	data, err := os.ReadFile(md)
	if err != nil || files.Err() != nil {
		t.Fatal(err, files.Err())
	}
	if want := "**3 sessions: $0.24 estimated in all**, not counting 1 whose cost is unknown\n\n"; !strings.HasSuffix(string(data), want) {
		t.Errorf("summary ends %q, want %q", string(data)[max(0, len(data)-120):], want)
	}
}

// Traces keeps each trace's spans in order, and the traces in the order
// they first appear, however they interleave.
func TestTraces(t *testing.T) {
	span := func(trace0 byte, name string) sdktrace.ReadOnlySpan {
		tid := trace.TraceID{trace0}
		return tracetest.SpanStub{Name: name, SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{1}})}.Snapshot()
	}
	got := Traces([]sdktrace.ReadOnlySpan{span(2, "a"), span(1, "b"), span(2, "c"), span(1, "d"), span(3, "e")})
	var names []string
	for _, spans := range got {
		var line []string
		for _, s := range spans {
			line = append(line, s.Name())
		}
		names = append(names, strings.Join(line, ","))
	}
	if want := []string{"a,c", "b,d", "e"}; !slices.Equal(names, want) {
		t.Errorf("Traces: %q, want %q", names, want)
	}
}

// The slowest tool calls are those a stable sort by duration puts first,
// and the busy time is that of the intervals sorted together, whatever
// the durations and starts (ties included).
func TestSlowestAndMerged(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	origin := time.Unix(1790000000, 0)
	for n := range 40 {
		calls := make([]ToolCall, n)
		for i := range calls {
			calls[i] = ToolCall{Name: fmt.Sprint(i), DurationMs: rng.Int64N(4)}
		}
		want := slices.Clone(calls)
		slices.SortStableFunc(want, func(a, b ToolCall) int { return int(b.DurationMs - a.DurationMs) })
		want = want[:min(slowest, len(want))]
		if got := slowestOf(calls); !slices.Equal(got, want) {
			t.Errorf("%d calls: slowest %v, want %v", n, got, want)
		}

		sorted := func() []interval {
			iv := make([]interval, rng.IntN(n+1))
			for i := range iv {
				start := origin.Add(time.Duration(rng.IntN(20)) * time.Millisecond)
				iv[i] = interval{start, start.Add(time.Duration(rng.IntN(5)) * time.Millisecond)}
			}
			slices.SortFunc(iv, func(a, b interval) int { return a.start.Compare(b.start) })
			return iv
		}
		a, b := sorted(), sorted()
		all := append(slices.Clone(a), b...)
		slices.SortFunc(all, func(a, b interval) int { return a.start.Compare(b.start) })
		if got, want := union(merged(a, b)), union(all); got != want {
			t.Errorf("busy %v, want %v", got, want)
		}
	}
}
