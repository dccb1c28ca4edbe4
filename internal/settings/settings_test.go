package settings

import (
	"github.com/cursor-otel/cursor-otel/internal/ostext"
	"strings"
	"testing"
	"time"
)

// Load reads what people write, flag or environment, and says what it
// cannot read in words a user acts on; a wrong value takes its default.
func TestLoad(t *testing.T) {
	tests := []struct {
		name     string
		flags    Flags
		env      map[string]string
		check    func(Settings) bool
		problems []string // each a part of the problems' text; none when empty
	}{
		{"defaults", Flags{}, nil, func(s Settings) bool {
			return !s.CaptureContent && s.DefaultRedaction && s.Rewrite && s.FlushTimeout == 3*time.Second && s.MaxAttributeLength == 16384
		}, nil},
		{"switches as people write them", Flags{}, map[string]string{"CURSOR_OTEL_CAPTURE_CONTENT": "on", "CURSOR_OTEL_QUIET": "TRUE", "CURSOR_OTEL_DEFAULT_REDACTION": "off", "CURSOR_OTEL_REWRITE": "no"},
			func(s Settings) bool { return s.CaptureContent && s.Quiet && !s.DefaultRedaction && !s.Rewrite }, nil},
		{"a bare number of seconds, a size with a unit", Flags{}, map[string]string{"CURSOR_OTEL_FLUSH_TIMEOUT": "5", "CURSOR_OTEL_MAX_ATTRIBUTE_LENGTH": "16k"},
			func(s Settings) bool { return s.FlushTimeout == 5*time.Second && s.MaxAttributeLength == 16<<10 }, nil},
		{"a flag wins over its twin", Flags{Delivery: Delivery{FlushTimeout: "500ms"}, Content: Content{Capture: Capture{CaptureContent: Switch{Text: "false", Set: true}}}},
			map[string]string{"CURSOR_OTEL_FLUSH_TIMEOUT": "9s", "CURSOR_OTEL_CAPTURE_CONTENT": "true"},
			func(s Settings) bool { return s.FlushTimeout == 500*time.Millisecond && !s.CaptureContent }, nil},
		{"wrong values take their defaults and are said", Flags{},
			map[string]string{"CURSOR_OTEL_CAPTURE_CONTENT": "maybe", "CURSOR_OTEL_FLUSH_TIMEOUT": "soon", "CURSOR_OTEL_MAX_ATTRIBUTE_LENGTH": "big"},
			func(s Settings) bool {
				return !s.CaptureContent && s.FlushTimeout == 3*time.Second && s.MaxAttributeLength == 16384
			},
			[]string{`CURSOR_OTEL_CAPTURE_CONTENT="maybe"`, `CURSOR_OTEL_FLUSH_TIMEOUT="soon"`, `CURSOR_OTEL_MAX_ATTRIBUTE_LENGTH="big"`}},
		{"a pattern that does not compile", Flags{Redaction: Redaction{Redact: []string{"ok-[0-9]+", "(unclosed"}}}, nil,
			func(s Settings) bool { return len(s.Redact) == 1 }, []string{`--redact "(unclosed": not a regular expression (missing closing )`}},
		{"a trace URL with no place for the id", Flags{Reports: Reports{TraceURL: "http://jaeger:16686/trace/"}}, nil,
			func(s Settings) bool { return s.TraceURL == "" }, []string{"no {trace_id} in it"}},
		{"a budget in dollars", Flags{Budget: Budget{MaxBudgetUSD: "$1.50"}}, nil, func(s Settings) bool { return s.MaxBudgetUSD == 1.5 && s.Prices != nil }, nil},
		{"a budget that is no amount", Flags{}, map[string]string{"CURSOR_OTEL_MAX_BUDGET_USD": "-2"},
			func(s Settings) bool { return s.MaxBudgetUSD == 0 }, []string{`CURSOR_OTEL_MAX_BUDGET_USD="-2": not an amount of US dollars above zero`}},
		{"a price file that is not there", Flags{Figures: Figures{Prices: "/nonexistent/prices.json"}}, nil,
			func(s Settings) bool { return s.Prices != nil }, []string{"--prices: prices /nonexistent/prices.json: " + ostext.Missing("/nonexistent/prices.json")}},
		{"the running step's summary file, named by its variable", Flags{},
			map[string]string{"CURSOR_OTEL_SUMMARY": "$GITHUB_STEP_SUMMARY", "GITHUB_STEP_SUMMARY": "/runner/_temp/step_summary_2"},
			func(s Settings) bool { return s.Summary == "/runner/_temp/step_summary_2" }, nil},
		{"the variable braced, as a flag", Flags{Reports: Reports{Summary: "${GITHUB_STEP_SUMMARY}"}}, map[string]string{"GITHUB_STEP_SUMMARY": "/runner/_temp/step_summary_3"},
			func(s Settings) bool { return s.Summary == "/runner/_temp/step_summary_3" }, nil},
		{"a file named as it is", Flags{}, map[string]string{"CURSOR_OTEL_SUMMARY": "report-$GITHUB_STEP_SUMMARY.md", "GITHUB_STEP_SUMMARY": "/elsewhere"},
			func(s Settings) bool { return s.Summary == "report-$GITHUB_STEP_SUMMARY.md" }, nil},
		{"the step's summary outside a step", Flags{}, map[string]string{"CURSOR_OTEL_SUMMARY": "$GITHUB_STEP_SUMMARY"},
			func(s Settings) bool { return s.Summary == "" },
			[]string{`CURSOR_OTEL_SUMMARY="$GITHUB_STEP_SUMMARY": GITHUB_STEP_SUMMARY is not set: this is not a GitHub Actions step; name a file`}},
		{"OTEL_* settings are checked too", Flags{}, map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": "/nonexistent/ca.pem"},
			func(Settings) bool { return true }, []string{"/nonexistent/ca.pem"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Load(tt.flags, func(k string) string { return tt.env[k] })
			if !tt.check(s) {
				t.Errorf("settings %+v", s)
			}
			if len(tt.problems) == 0 {
				if err != nil {
					t.Errorf("problems %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no problems, want %q", tt.problems)
			}
			for _, p := range tt.problems {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("problems %q do not say %q", err, p)
				}
			}
		})
	}
}

// A malformed budget is a guard's problem; every other wrong setting is
// not.
func TestGuard(t *testing.T) {
	for _, tt := range []struct {
		env   map[string]string
		flags Flags
		guard bool
	}{
		{map[string]string{"CURSOR_OTEL_MAX_BUDGET_USD": "abc"}, Flags{}, true},
		{map[string]string{"CURSOR_OTEL_MAX_BUDGET_USD": "-1"}, Flags{}, true},
		{map[string]string{"CURSOR_OTEL_MAX_BUDGET_USD": "NaN"}, Flags{}, true},
		{nil, Flags{Budget: Budget{MaxBudgetUSD: "0"}}, true},
		{map[string]string{"CURSOR_OTEL_MAX_BUDGET_USD": "1.50"}, Flags{}, false},
		{map[string]string{"CURSOR_OTEL_FLUSH_TIMEOUT": "5x"}, Flags{}, false},
	} {
		_, problems := Load(tt.flags, func(name string) string { return tt.env[name] })
		if got := Guard(problems) != nil; got != tt.guard {
			t.Errorf("%v %+v: guard %v, want %v (problems: %v)", tt.env, tt.flags, got, tt.guard, problems)
		}
	}
}
