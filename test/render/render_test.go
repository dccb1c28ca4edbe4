//go:build render

// Package render renders the Mermaid charts cursor-otel writes with the
// real Mermaid library in headless Chromium, as GitHub renders them in a
// job summary: every chart parses, draws one bar per call it holds, and
// shows each label as the text it was given. It needs Node.js, the npm
// packages of browser/ (npm ci) and Debian's chromium; .ci/run installs
// them and runs it:
//
//	go test -tags render ./test/render
//
// -screenshot FILE also writes a picture of the report of
// examples/fix-failing-test.ndjson, as docs/ci-summary.png shows it.
package render

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cursor-otel/cursor-otel/internal/mode/compare"
	"github.com/cursor-otel/cursor-otel/internal/pricing"
	"github.com/cursor-otel/cursor-otel/internal/proctest"
	"github.com/cursor-otel/cursor-otel/internal/summary"
	"github.com/cursor-otel/cursor-otel/parse"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

var screenshot = flag.String("screenshot", "", "write a picture of the report of examples/fix-failing-test.ndjson to this file")

// fuzzCorpusMax bounds how many of the fuzzer's inputs are rendered.
const fuzzCorpusMax = 300

// chart is one chart to render and what it must show.
type chart struct {
	ID       string   `json:"id"`
	Text     string   `json:"text"`
	bars     int      // the bars it must draw
	labels   []string // the labels they must show, in order
	sections []string
}

// result is what the browser made of a chart.
type result struct {
	ID          string   `json:"id"`
	ParseError  string   `json:"parseError"`
	RenderError string   `json:"renderError"`
	Kind        string   `json:"kind"`
	Bars        int      `json:"bars"`
	Series      []int    `json:"series"`
	Labels      []string `json:"labels"`
	Sections    []string `json:"sections"`
}

func TestChartsRender(t *testing.T) {
	var charts []chart
	charts = append(charts, sessionCharts(t)...)
	charts = append(charts, compareCharts(t)...)
	hostile := hostileCharts(t)
	charts = append(charts, hostile...)
	fuzzed := fuzzCharts(t)
	charts = append(charts, fuzzed...)

	page := filepath.Join(t.TempDir(), "summary.png")
	if *screenshot != "" {
		page, _ = filepath.Abs(*screenshot)
	}
	start := time.Now()
	results := renderAll(t, charts, reportPage(t), page)
	if len(results) != len(charts) {
		t.Fatalf("%d results for %d charts", len(results), len(charts))
	}
	var parseErrors, bars, want int
	for i, c := range charts {
		r := results[i]
		if r.ParseError != "" || r.RenderError != "" {
			parseErrors++
			t.Errorf("%s: parse error %q, render error %q in\n%s", c.ID, r.ParseError, r.RenderError, c.Text)
			continue
		}
		got := r.Bars
		if r.Kind != "gantt" {
			got = 0
			for _, n := range r.Series {
				got += n
			}
		}
		bars += got
		want += c.bars
		if got != c.bars {
			t.Errorf("%s: %d bars drawn, want %d", c.ID, got, c.bars)
		}
		labels := make([]string, len(r.Labels))
		for i, l := range r.Labels {
			labels[i] = strings.TrimSpace(l)
		}
		if strings.Join(labels, "\n") != strings.Join(c.labels, "\n") {
			t.Errorf("%s: labels shown\n%q\nwant\n%q", c.ID, labels, c.labels)
		}
		if c.sections != nil && strings.Join(r.Sections, "\n") != strings.Join(c.sections, "\n") {
			t.Errorf("%s: sections %q, want %q", c.ID, r.Sections, c.sections)
		}
	}
	t.Logf("%d charts rendered in %s (%d hostile, %d from the fuzzer's corpus): %d parse or render errors; %d bars drawn, %d calls and runs to draw",
		len(charts), time.Since(start).Round(time.Millisecond), len(hostile), len(fuzzed), parseErrors, bars, want)
	if info, err := os.Stat(page); err != nil || info.Size() < 10_000 {
		t.Errorf("no picture of the report: %v", err)
	}
}

// sessionCharts are the charts of the reports of every recording the
// project has: one a session, with a bar for the session and for each of
// its model and tool call spans, up to the chart's cap.
func sessionCharts(t *testing.T) []chart {
	var paths []string
	for _, pattern := range []string{"../../examples/*.ndjson", "../../spanmap/testdata/streams/*.ndjson", "../../../shared/fixtures/real/*.ndjson"} {
		more, _ := filepath.Glob(pattern)
		paths = append(paths, more...)
	}
	var charts []chart
	for _, p := range paths {
		for i, spans := range replay(t, p) {
			r, ok := summary.FromTrace(spans)
			if !ok {
				continue
			}
			calls := 0
			for _, s := range spans {
				switch spanmap.Value(s.Attributes(), spanmap.OperationName).AsString() {
				case spanmap.OpChat, spanmap.OpExecuteTool:
					calls++
				}
			}
			blocks := mermaidBlocks(r.Markdown())
			if len(blocks) != 1 {
				t.Fatalf("%s: %d charts in a session's report", p, len(blocks))
			}
			c := ganttChart(fmt.Sprintf("%s session %d", filepath.Base(p), i+1), blocks[0])
			if c.bars != 1+min(calls, summary.ChartBars) {
				t.Errorf("%s: the chart holds %d bars for %d model and tool call spans", c.ID, c.bars, calls)
			}
			charts = append(charts, c)
		}
	}
	if len(charts) < 10 {
		t.Fatalf("only %d session charts", len(charts))
	}
	return charts
}

// compareCharts are compare's charts of the project's runs, and of many.
func compareCharts(t *testing.T) []chart {
	dir := t.TempDir()
	many := func(name string, n int) string {
		var b bytes.Buffer
		for i := range n {
			cost := 0.05 + float64(i%7)/100
			r := summary.Report{TraceID: fmt.Sprintf("%032x", i), Outcome: "success", WallMs: int64(9_000 + i%11*700), CostUSD: &cost}
			b.Write(r.JSON())
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	data := "../../internal/mode/compare/testdata/"
	pairs := [][2]string{
		{data + "main.jsonl", data + "pr-failed.jsonl"},
		{data + "main.jsonl", data + "pr-slower.jsonl"},
		{data + "main.jsonl", data + "pr-unpriced.jsonl"},
		{many("base.jsonl", 80), many("new.jsonl", 12)},
	}
	var charts []chart
	for _, p := range pairs {
		var out, errOut bytes.Buffer
		compare.Run(compare.Config{Base: p[0], New: p[1], Prices: pricing.Default(), Stdout: &out, Stderr: &errOut})
		if errOut.Len() > 0 {
			t.Fatalf("compare %s %s: %s", p[0], p[1], errOut.String())
		}
		for i, text := range mermaidBlocks(out.String()) {
			labels := xLabels.FindStringSubmatch(text)
			if labels == nil {
				t.Fatalf("no x axis in\n%s", text)
			}
			c := chart{ID: fmt.Sprintf("compare %s %s chart %d", filepath.Base(p[0]), filepath.Base(p[1]), i+1), Text: text}
			for _, l := range strings.Split(labels[1], ", ") {
				s, err := strconv.Unquote(l)
				if err != nil {
					t.Fatal(err)
				}
				c.labels = append(c.labels, s)
			}
			c.bars = len(c.labels)
			charts = append(charts, c)
		}
	}
	return charts
}

var xLabels = regexp.MustCompile(`\n    x-axis \[(.*)\]\n`)

// hostile are strings that mean something to Mermaid, HTML, Markdown or a
// terminal, each put where the stream's text goes in a chart.
var hostile = []string{
	"a: b", "a : crit, 0, 1ms", "#35;", "#", "echo 1; echo 2", "x;y:z#w", "\n", "line 1\nline 2\r\nline 3",
	"%%{init: {\"theme\": \"forest\"}}%%", "%% comment", "a%%b", "%", "}%%", "accTitle: x", "accDescr { x }",
	"```", "`id`", "```mermaid\ngraph TD\n```", "<script>alert(1)</script>", "<img src=x onerror=alert(1)>",
	"<b>bold</b> &amp; &lt;", "**bold** _em_ [link](http://x) ![i](x)", "| a | b |", "\\", "\\n", "'\"",
	"title Owned", "section Owned", "dateFormat YYYY", "axisFormat %Y", "tickInterval 1day", "excludes weekends",
	"todayMarker on", "click task1 href \"javascript:alert(1)\"", "call alert()", "2026-01-02", "gantt",
	"after task1", "crit, done, active, milestone", "vert", "inclusiveEndDates", "weekday monday",
	"\x1b[2J\x1b]0;title\x07", "\u202egnp.exe", "\u2028\u2029\u0085", "\u00a0nbsp", "\ufeffbom", "\xff\xfe invalid",
	"日本語のパス/ファイル.go", "émoji 🎉🔥", "ﬂ°°35¶ß", "ﬂ°lt¶ß", "&#60;", "&lt;", "#60;", "#x3C;", "#lt;",
	"{{}}", "[[x]]", "((x))", ">", "-->", "x --> y", "A-->B;C-->D", strings.Repeat("long ", 100),
	"ghp_[REDACTED]", "curl -u user:[REDACTED] https://x", "",
}

// hostileCharts are charts of reports whose tool names, commands, model
// names and errors are the hostile strings.
func hostileCharts(t *testing.T) []chart {
	var charts []chart
	for i, s := range hostile {
		charts = append(charts, reportChart(t, fmt.Sprintf("hostile %d %q", i, s), s, s, s, s))
	}
	return charts
}

// fuzzCharts are the charts of the inputs summary's FuzzGantt found: its
// corpus in the Go build cache, after .ci/run's fuzzing.
func fuzzCharts(t *testing.T) []chart {
	cache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{
		filepath.Join("..", "..", "internal", "summary", "testdata", "fuzz", "FuzzGantt"),
		filepath.Join(strings.TrimSpace(string(cache)), "fuzz", "github.com", "cursor-otel", "cursor-otel", "internal", "summary", "FuzzGantt"),
	}
	var charts []chart
	for _, d := range dirs {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if len(charts) >= fuzzCorpusMax {
				break
			}
			data, err := os.ReadFile(filepath.Join(d, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			args, err := corpusStrings(data)
			if err != nil || len(args) != 4 {
				t.Errorf("%s: %v", e.Name(), err)
				continue
			}
			charts = append(charts, reportChart(t, "fuzz "+e.Name(), args[0], args[1], args[2], args[3]))
		}
	}
	return charts
}

// corpusStrings reads the string arguments of a file of Go's fuzzing
// corpus ("go test fuzz v1", then a line such as string("…") for each).
func corpusStrings(data []byte) ([]string, error) {
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) == 0 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("not a corpus file")
	}
	var out []string
	for _, l := range lines[1:] {
		inner, ok := strings.CutPrefix(l, "string(")
		if !ok || !strings.HasSuffix(inner, ")") {
			return nil, fmt.Errorf("not a string: %s", l)
		}
		s, err := strconv.Unquote(strings.TrimSuffix(inner, ")"))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// reportChart is the chart of a report as summary's FuzzGantt makes it:
// a failed model call, a tool call that succeeded and one that failed.
func reportChart(t *testing.T, id, name, subject, model, errText string) chart {
	one := int64(1)
	r := summary.Report{WallMs: 5000, Outcome: "error", Model: model,
		ModelCalls: []summary.ModelCall{{StartMs: 0, DurationMs: 3000, Model: model, Error: errText, ErrorType: errText}},
		ToolCalls: []summary.ToolCall{
			{Name: name, Subject: subject, Outcome: "success", StartMs: 100, DurationMs: 900, ModelCall: 0},
			{Name: name, Subject: subject, Outcome: errText, ExitCode: &one, StartMs: 200, DurationMs: 1000, ModelCall: 0},
		}}
	blocks := mermaidBlocks(r.Markdown())
	if len(blocks) != 1 {
		t.Fatalf("%s: %d charts in the report", id, len(blocks))
	}
	return ganttChart(id, blocks[0])
}

var (
	taskLine   = regexp.MustCompile(`(?m)^    (\S.*?) :[^:]*ms$`)
	section    = regexp.MustCompile(`(?m)^    section (.*)$`)
	entityCode = regexp.MustCompile(`#([0-9]+);`)
)

// mermaidBlocks are the Mermaid charts GitHub would draw of md: its
// fenced code blocks of language mermaid, as a Markdown parser finds them.
func mermaidBlocks(md string) []string {
	src := []byte(md)
	var out []string
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if b, ok := n.(*ast.FencedCodeBlock); ok && entering && string(b.Language(src)) == "mermaid" {
			var code strings.Builder
			for i := 0; i < b.Lines().Len(); i++ {
				seg := b.Lines().At(i)
				code.Write(seg.Value(src))
			}
			out = append(out, code.String())
		}
		return ast.WalkContinue, nil
	})
	return out
}

// ganttChart is a gantt chart and what it must show: a bar a task line,
// labelled with the task's name, its entity codes read.
func ganttChart(id, text string) chart {
	c := chart{ID: id, Text: text}
	for _, m := range taskLine.FindAllStringSubmatch(text, -1) {
		c.labels = append(c.labels, strings.TrimSpace(shown(m[1])))
	}
	for _, m := range section.FindAllStringSubmatch(text, -1) {
		c.sections = append(c.sections, m[1])
	}
	c.bars = len(c.labels)
	return c
}

// shown is the text Mermaid shows for a label: its entity codes read.
func shown(label string) string {
	return entityCode.ReplaceAllStringFunc(label, func(m string) string {
		n, _ := strconv.Atoi(m[1 : len(m)-1])
		return string(rune(n))
	})
}

// replay turns a recording into its sessions' spans, a trace each.
func replay(t *testing.T, path string) [][]trace.ReadOnlySpan {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	exp := tracetest.NewInMemoryExporter()
	tp := trace.NewTracerProvider(trace.WithIDGenerator(spanmap.NewIDGenerator()), trace.WithSyncer(exp))
	rec := spanmap.NewStream(context.Background(), tp.Tracer("render"), spanmap.Options{
		Now: func() time.Time { return time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC) }})
	dec := parse.NewDecoder(f)
	for ev, err := dec.Next(); err != io.EOF; ev, err = dec.Next() {
		rec.Record(ev, time.Time{})
	}
	rec.Finish(spanmap.End{})
	return summary.Traces(exp.GetSpans().Snapshots())
}

// reportPage is the report of examples/fix-failing-test.ndjson as an HTML
// page: its Markdown rendered as GitHub's (GFM, its HTML kept), its chart as a
// <pre class="mermaid"> for Mermaid to draw, in GitHub's fonts and table
// style.
func reportPage(t *testing.T) string {
	r, ok := summary.FromTrace(replay(t, "../../examples/fix-failing-test.ndjson")[0])
	if !ok {
		t.Fatal("no session in examples/fix-failing-test.ndjson")
	}
	r.TraceURL = "http://localhost:16686/trace/" + r.TraceID
	var body bytes.Buffer
	md := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	if err := md.Convert([]byte(r.Markdown()), &body); err != nil {
		t.Fatal(err)
	}
	page := strings.ReplaceAll(body.String(), `<pre><code class="language-mermaid">`, `<pre class="mermaid">`)
	page = regexp.MustCompile(`(?s)(<pre class="mermaid">.*?)</code></pre>`).ReplaceAllString(page, "$1</pre>")
	return `<!doctype html><html><head><meta charset="utf-8"><style>
body { font-family: -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; font-size: 14px; line-height: 1.5;
  color: #1f2328; margin: 0; padding: 16px 24px; width: 900px; }
h3 { font-size: 1.25em; margin: 8px 0 16px; }
table { border-collapse: collapse; margin: 0 0 16px; }
th, td { border: 1px solid #d1d9e0; padding: 4px 12px; }
tr:nth-child(2n) { background: #f6f8fa; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 85%; background: #eff1f3; padding: 1px 4px; border-radius: 6px; }
a { color: #0969da; text-decoration: none; }
pre { background: #f6f8fa; padding: 8px 16px; border-radius: 6px; }
pre code { background: none; padding: 0; }
pre.mermaid { background: none; margin: 0 0 16px; }
</style></head><body>` + page + `</body></html>`
}

// renderAll renders the charts, and the page to a picture, in one browser.
func renderAll(t *testing.T, charts []chart, html, picture string) []result {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: .ci/run installs what this test needs")
	}
	if _, err := os.Stat("browser/node_modules/mermaid"); err != nil {
		t.Fatal("browser/node_modules is missing: run npm ci in test/render/browser")
	}
	input, err := json.Marshal(map[string]any{"charts": charts, "page": map[string]any{"html": html, "out": picture, "width": 950}})
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "charts.json")
	if err := os.WriteFile(in, input, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(node, "render.mjs", in)
	cmd.Dir = "browser"
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	proctest.Start(t, cmd, 5*time.Minute)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("render.mjs: %v\n%s", err, stderr.String())
	}
	var out struct{ Results []result }
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("render.mjs wrote %q: %v\n%s", stdout.String(), err, stderr.String())
	}
	return out.Results
}
