package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/parse"
)

// TestTurnReportsGoWhereTheHookSaid: a hook turn's report goes to the
// files the hook that recorded it named (flag or environment, made
// absolute), whatever the builder's own settings say; entries an older
// version wrote, which name none, leave it to the builder's settings.
func TestTurnReportsGoWhereTheHookSaid(t *testing.T) {
	for _, tt := range []struct {
		name        string
		hook        string // the hook's --summary-json, relative to its directory; "" for none
		older       bool   // the entries name no reports (an older version's)
		wantHook    int    // reports in the hook's file
		wantBuilder int    // and in the builder's own
	}{
		{"the hook's file, whoever builds", "hook.jsonl", false, 1, 0},
		{"a hook that asked for none", "", false, 0, 0},
		{"an older version's entries", "", true, 0, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir, hookDir, builderDir := t.TempDir(), t.TempDir(), t.TempDir()
			hookSettings := settings.Settings{SummaryJSON: tt.hook, TraceURL: "http://jaeger/trace/{trace_id}"}
			t.Chdir(hookDir)
			c := `"conversation_id":"conv-a","generation_id":"g1"`
			for i, event := range []string{`{"hook_event_name":"beforeSubmitPrompt",` + c + `}`, `{"hook_event_name":"stop",` + c + `,"status":"completed"}`} {
				at := t0.Add(time.Duration(i) * time.Second)
				if tt.older {
					ev := mustDecode(t, event)
					if err := appendEntry(dir, journalEntry{HookEntry: parse.HookEntry{At: at, Event: ev}}); err != nil {
						t.Fatal(err)
					}
					continue
				}
				var out strings.Builder
				Run(Config{Settings: hookSettings, StateDir: dir, Stdin: strings.NewReader(event), Stdout: &out, Now: func() time.Time { return at }})
			}
			t.Chdir(builderDir) // the builder runs elsewhere, with settings of its own
			own := filepath.Join(builderDir, "builder.jsonl")
			Build(context.Background(), BuildConfig{Settings: settings.Settings{SummaryJSON: own}, StateDir: dir,
				Getenv: func(string) string { return "" }, Now: func() time.Time { return t0.Add(time.Minute) }})
			hookFile, _ := os.ReadFile(filepath.Join(hookDir, "hook.jsonl"))
			builderFile, _ := os.ReadFile(own)
			if got, builder := bytes.Count(hookFile, []byte("\n")), bytes.Count(builderFile, []byte("\n")); got != tt.wantHook || builder != tt.wantBuilder {
				t.Fatalf("%d reports in the hook's file, %d in the builder's; want %d and %d", got, builder, tt.wantHook, tt.wantBuilder)
			}
			for d := json.NewDecoder(bytes.NewReader(hookFile)); d.More(); {
				var report struct {
					Session  string `json:"session_id"`
					TraceID  string `json:"trace_id"`
					TraceURL string `json:"trace_url"`
				}
				if err := d.Decode(&report); err != nil {
					t.Fatal(err)
				}
				if report.Session != "conv-a" || report.TraceID == "" || report.TraceURL != "http://jaeger/trace/"+report.TraceID {
					t.Errorf("report: %+v", report)
				}
			}
		})
	}
}

func mustDecode(t *testing.T, event string) parse.HookEvent {
	t.Helper()
	ev, err := parse.DecodeHook([]byte(event))
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// A conversation's end that came after its last turn was built is no
// span: the reports say it, found by the conversation's id, and compare
// reads the file as before.
func TestSessionEndAfterItsLastTurnIsReported(t *testing.T) {
	dir, hookDir := t.TempDir(), t.TempDir()
	t.Chdir(hookDir)
	s := settings.Settings{SummaryJSON: "hook.jsonl", Summary: "hook.md"}
	c := `"conversation_id":"conv-e","generation_id":"g1"`
	run := func(at time.Time, event string) {
		var out strings.Builder
		Run(Config{Settings: s, StateDir: dir, Stdin: strings.NewReader(event), Stdout: &out, Now: func() time.Time { return at }})
	}
	build := func(at time.Time) {
		Build(context.Background(), BuildConfig{Settings: s, StateDir: dir, Getenv: func(string) string { return "" }, Now: func() time.Time { return at }})
	}
	run(t0, `{"hook_event_name":"beforeSubmitPrompt",`+c+`}`)
	run(t0.Add(time.Second), `{"hook_event_name":"stop",`+c+`,"status":"completed"}`)
	build(t0.Add(time.Minute))
	run(t0.Add(time.Hour), `{"hook_event_name":"sessionEnd","conversation_id":"conv-e","generation_id":"","reason":"window_close","duration_ms":3600000}`)
	build(t0.Add(2 * time.Hour))

	data, _ := os.ReadFile(filepath.Join(hookDir, "hook.jsonl"))
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	if len(lines) != 2 {
		t.Fatalf("%d report lines, want the turn's and the end's: %s", len(lines), data)
	}
	var turn struct {
		TraceID string `json:"trace_id"`
	}
	var end struct {
		End struct {
			Session    string `json:"session_id"`
			LastTrace  string `json:"last_trace_id"`
			Reason     string `json:"reason"`
			DurationMs int64  `json:"duration_ms"`
			Turns      int    `json:"turns"`
		} `json:"session_end"`
	}
	if json.Unmarshal(lines[0], &turn) != nil || json.Unmarshal(lines[1], &end) != nil {
		t.Fatalf("reports: %s", data)
	}
	if e := end.End; e.Session != "conv-e" || e.LastTrace != turn.TraceID || e.Reason != "window_close" || e.DurationMs != 3600000 || e.Turns != 1 {
		t.Errorf("the end's report: %+v; want conv-e, last trace %s, window_close, 3600000 ms, 1 turn", e, turn.TraceID)
	}
	md, _ := os.ReadFile(filepath.Join(hookDir, "hook.md"))
	if !strings.Contains(string(md), "Conversation `conv-e` ended (window_close) after 60m00s, 1 turn.") {
		t.Errorf("the Markdown report says no end:\n%s", md)
	}
}
