package summary

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/redact"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

// The charts of the examples and of the span model's test streams, every
// session's, with what each left out.
func TestGanttGolden(t *testing.T) {
	paths, _ := filepath.Glob("../../examples/*.ndjson")
	more, _ := filepath.Glob("../../spanmap/testdata/streams/*.ndjson")
	for _, p := range append(paths, more...) {
		name := strings.TrimSuffix(filepath.Base(p), ".ndjson")
		if strings.HasPrefix(filepath.ToSlash(p), "../../examples/") {
			name = "example-" + name
		}
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			for i, r := range reports(t, p) {
				chart, leftOut := r.Gantt()
				fmt.Fprintf(&b, "-- session %d\n%s", i+1, chart)
				if leftOut != "" {
					b.WriteString("-- " + leftOut + "\n")
				}
				checkChartLines(t, chart)
			}
			golden.Check(t, filepath.Join("testdata", "gantt", name+".golden"), b.String(), *update)
		})
	}
}

// The lines a chart is made of, and nothing else: text from the stream
// appears only in a task's name, as allowed characters and entity codes,
// after the figure each name starts with.
var chartLine = regexp.MustCompile(`^(gantt` +
	`|    accTitle: cursor-agent session of [0-9.ms]+` +
	`|    dateFormat x` +
	`|    axisFormat %s(\.%L)?[smh]` +
	`|    tickInterval [1-9][0-9]*(millisecond|second)` +
	`|    todayMarker off` +
	`|    section (session|other tools|(model|subagent) call [1-9][0-9]*)` +
	`|    [0-9][0-9.ms]*s( ` + labelText + `)* :((active|crit|done), )*[0-9]+, [0-9]+ms` +
	`)$`)

// labelText is a run of what mermaidText writes.
const labelText = `([A-Za-z0-9 .,\-_/+=()\[\]?!@*~^$|']|#[0-9]+;)+`

func checkChartLines(t *testing.T, chart string) {
	t.Helper()
	if !strings.HasSuffix(chart, "\n") {
		t.Errorf("chart does not end its last line:\n%s", chart)
	}
	for _, line := range strings.Split(strings.TrimSuffix(chart, "\n"), "\n") {
		if !chartLine.MatchString(line) {
			t.Errorf("chart line %q is not one a chart is made of", line)
		}
	}
}

// entityCode is how mermaidText writes a character not on its list.
var entityCode = regexp.MustCompile(`#([0-9]+);`)

// shown is what Mermaid shows of a label: its entity codes read.
func shown(label string) string {
	return entityCode.ReplaceAllStringFunc(label, func(m string) string {
		n, _ := strconv.Atoi(m[1 : len(m)-1])
		return string(rune(n))
	})
}

// Text that means something to Mermaid, HTML or Markdown is written as
// entity codes, and reads back as the text itself.
func TestMermaidText(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"go test ./pkg/queue", 80, "go test ./pkg/queue"},
		{"a: b", 80, "a#58; b"},
		{"echo #1; echo 2", 80, "echo #35;1#59; echo 2"},
		{"%%{init: {'theme':'dark'}}%%", 80, "#37;#37;#123;init#58; #123;'theme'#58;'dark'#125;#125;#37;#37;"},
		{"line 1\nline 2\r\n\tline 3", 80, "line 1 line 2 line 3"},
		{"`id` <b>x</b> & \"q\"", 80, "#96;id#96; #60;b#62;x#60;/b#62; #38; #34;q#34;"},
		{"\x1b[2J", 80, "#92;x1b[2J"},
		{"café 日本", 80, "caf#233; #26085;#26412;"},
		{"[REDACTED]", 80, "[REDACTED]"},
		{"0123456789", 9, "01234567#8230;"},
	}
	for _, tt := range tests {
		got := mermaidText(tt.in, tt.n)
		if got != tt.want {
			t.Errorf("mermaidText(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if want := oneLine(tt.in, tt.n); shown(got) != want {
			t.Errorf("mermaidText(%q) shows as %q, want %q", tt.in, shown(got), want)
		}
	}
}

// The chart is made of the calls the report has, each under the model
// call that issued it, failures marked; the axis fits the session.
func TestGanttMarks(t *testing.T) {
	r := reports(t, "../../examples/failed-run.ndjson")[0]
	chart, leftOut := r.Gantt()
	for _, want := range []string{
		"    36.40s session (failed) :crit, 0, 36400ms\n",
		"    section model call 1\n    1.93s Auto :active, 0, 1925ms\n    0.01s shell rm -rf build/ (rejected) :done, 1910, 15ms\n",
		"    0.05s read proto/buf.gen.yaml (error) :crit, 4600, 50ms\n",
	} {
		if !strings.Contains(chart, want) {
			t.Errorf("chart lacks %q:\n%s", want, chart)
		}
	}
	if leftOut != "" {
		t.Errorf("a short session's chart left out %q", leftOut)
	}
}

func TestChartAxis(t *testing.T) {
	tests := []struct {
		wallMs        int64
		format, tick  string
		scale, atWall int64
	}{
		{0, "%s.%Ls", "1millisecond", 1, 0},
		{450, "%s.%Ls", "50millisecond", 1, 450},
		{9_999, "%ss", "1second", 1, 9_999},
		{31_200, "%ss", "5second", 1, 31_200},
		{180_000, "%ss", "20second", 1, 180_000},
		{180_001, "%sm", "1second", 60, 3_000},
		{45 * 60_000, "%sm", "5second", 60, 45_000},
		{10 * 3_600_000, "%sm", "60second", 60, 600_000},
		{30 * 3_600_000, "%sh", "5second", 3600, 30_000},
		{400 * 3_600_000, "%sh", "50second", 3600, 400_000},
	}
	for _, tt := range tests {
		a := chartAxis(tt.wallMs)
		if a.format != tt.format || a.tick != tt.tick || a.scale != tt.scale || a.at(tt.wallMs) != tt.atWall {
			t.Errorf("chartAxis(%d) = %+v, at the end %d; want %s, %s, 1/%d, %d", tt.wallMs, a, a.at(tt.wallMs), tt.format, tt.tick, tt.scale, tt.atWall)
		}
	}
}

// A long session's chart keeps every failure and the slowest calls, and
// says what it left out.
func TestGanttCap(t *testing.T) {
	r := Report{WallMs: 20 * 60_000, Outcome: "success", Model: "m"}
	for i := range 20 {
		r.ModelCalls = append(r.ModelCalls, ModelCall{StartMs: int64(i) * 60_000, DurationMs: 60_000})
	}
	for i := range 200 {
		c := ToolCall{Name: "read", Subject: fmt.Sprintf("file%03d", i), Outcome: "success",
			StartMs: int64(i) * 6000, DurationMs: int64(i%50) * 10, ModelCall: i / 10}
		if i%40 == 0 {
			c.Outcome, c.Name = "error", "shell"
		}
		r.ToolCalls = append(r.ToolCalls, c)
	}
	chart, leftOut := r.Gantt()
	checkChartLines(t, chart)
	bars := strings.Count(chart, "ms\n") - 1 // less the session's
	if bars != ChartBars {
		t.Errorf("%d bars, want %d", bars, ChartBars)
	}
	if n := strings.Count(chart, " shell "); n != 5 {
		t.Errorf("%d failed tool calls drawn, want all 5", n)
	}
	if n := strings.Count(chart, ":active, "); n != 20 {
		t.Errorf("%d model calls drawn, want all 20 (the slowest)", n)
	}
	want := "The chart shows 50 of the 220 calls: every failed one and the slowest. Left out: 170 tool calls, each 0.43s or shorter."
	if leftOut != want {
		t.Errorf("left out: %q, want %q", leftOut, want)
	}
	if !strings.Contains(r.Markdown(), "```\n\n"+want+"\n\n") {
		t.Errorf("the report does not say what its chart left out")
	}
}

// A secret in a command is redacted before any report is made: the chart
// shows the mask, never the secret.
func TestGanttRedacted(t *testing.T) {
	secret := "ghp_" + strings.Repeat("aB3dE5fG7h", 3) + "123456"
	stream := `{"type":"system","subtype":"init","session_id":"s","model":"m"}
{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"curl -H 'Authorization: token ` + secret + `' x"}}},"timestamp_ms":1000}
{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"shellToolCall":{"result":{"success":{"exitCode":0}}}},"timestamp_ms":2000}
{"type":"result","subtype":"success","is_error":false,"duration_ms":3000}
`
	path := filepath.Join(t.TempDir(), "secret.ndjson")
	if err := os.WriteFile(path, []byte(stream), 0o644); err != nil {
		t.Fatal(err)
	}
	red := redact.New(redact.Options{})
	r, ok := FromTrace(replayedWith(t, path, spanmap.Options{Redact: red.Redact, RedactJSON: red.RedactJSON}))
	if !ok {
		t.Fatal("no session")
	}
	chart, _ := r.Gantt()
	if strings.Contains(chart, secret) || strings.Contains(shown(chart), secret) || !strings.Contains(chart, "[REDACTED]") {
		t.Errorf("chart:\n%s", chart)
	}
}

// Whatever a tool's name, its command or path, a model's name or an
// error, the chart is made of the lines a chart is made of, and each label
// reads as the text it was given.
func FuzzGantt(f *testing.F) {
	f.Add("shell", "go test ./...", "Claude 4.5 Sonnet", "error")
	f.Add("title x", "a: b\n%%{init: {\"theme\":\"dark\"}}%%\nsection y", "gpt-5 <b>x</b>", "#1;")
	f.Add("click", "echo `id`; printf '\x1b[2J' # comment", "m;n", "\xff\xfe")
	f.Fuzz(func(t *testing.T, name, subject, model, errText string) {
		one := int64(1)
		r := Report{WallMs: 5000, Outcome: "error", Model: model,
			ModelCalls: []ModelCall{{StartMs: 0, DurationMs: 3000, Model: model, Error: errText, ErrorType: errText}},
			ToolCalls: []ToolCall{
				{Name: name, Subject: subject, Outcome: "success", StartMs: 100, DurationMs: 900, ModelCall: 0},
				{Name: name, Subject: subject, Outcome: errText, ExitCode: &one, StartMs: 200, DurationMs: 1000, ModelCall: 0},
			}}
		chart, _ := r.Gantt()
		checkChartLines(t, chart)
		for _, s := range []string{name, subject, model} {
			if want := oneLine(s, 24); !strings.Contains(shown(chart), strings.TrimSuffix(want, "…")) {
				t.Errorf("chart does not show %q:\n%s", want, chart)
			}
		}
		md := r.Markdown()
		if strings.Count(md, "```mermaid\n") != 1 || !strings.Contains(md, "```mermaid\n"+chart+"```\n") {
			t.Errorf("the report does not hold the chart whole in one code block:\n%s", md)
		}
	})
}

// A tool call no model call issued (as a hook may report one) is drawn
// last, in a section of its own.
func TestGanttToolOfNoModelCall(t *testing.T) {
	r := Report{WallMs: 3000, Outcome: "success", Model: "m",
		ModelCalls: []ModelCall{{StartMs: 0, DurationMs: 2000}},
		ToolCalls: []ToolCall{{Name: "read", Subject: "a.go", Outcome: "success", StartMs: 100, DurationMs: 50, ModelCall: -1},
			{Name: "grep", Outcome: "success", StartMs: 200, DurationMs: 50, ModelCall: 0}}}
	chart, _ := r.Gantt()
	checkChartLines(t, chart)
	want := "    section model call 1\n    2.00s m :active, 0, 2000ms\n    0.05s grep :200, 50ms\n    section other tools\n    0.05s read a.go :100, 50ms\n"
	if !strings.HasSuffix(chart, want) {
		t.Errorf("chart ends\n%s\nwant it to end\n%s", chart, want)
	}
}

// A name of blanks shows as nothing, never as a bar label ending in a
// blank: a model call falls back to "model", a failure with no outcome
// to "error".
func TestGanttBlankNames(t *testing.T) {
	r := Report{WallMs: 5000, Outcome: "error", Model: " ",
		ModelCalls: []ModelCall{{StartMs: 0, DurationMs: 3000, Model: "\t", Error: "x", ErrorType: " "}},
		ToolCalls:  []ToolCall{{Name: " ", Subject: "", Outcome: " ", StartMs: 100, DurationMs: 900, ModelCall: 0}},
	}
	chart, _ := r.Gantt()
	checkChartLines(t, chart)
	for _, want := range []string{"    3.00s model (error) :active, crit, ", "    0.90s (error) :crit, "} {
		if !strings.Contains(chart, want) {
			t.Errorf("chart has no %q:\n%s", want, chart)
		}
	}
}
