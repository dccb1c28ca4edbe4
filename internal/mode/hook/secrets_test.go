package hook

import (
	"cmp"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/envlist"
	"github.com/cursor-otel/cursor-otel/internal/redact/redacttest"
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/parse"
)

// plantedEvents are a conversation's hook events, one of each kind, with
// text planted in every field each carries but its identifiers (which
// are kept as given): the tool's input in each of the keys read from it.
func plantedEvents(text string) []string {
	q, _ := json.Marshal(text)
	s := string(q)
	input := `{"command":` + s + `,"cwd":` + s + `,"file_path":` + s + `,"pattern":` + s + `,"url":` + s + `,"query":` + s + `,"content":` + s + `,"password":` + s + `}`
	c := `"conversation_id":"conv-s","generation_id":"gen-1","model":` + s + `,"cursor_version":` + s
	ev := func(name, rest string) string { return `{"hook_event_name":"` + name + `",` + c + rest + `}` }
	return []string{
		ev(parse.HookSessionStart, `,"workspace_roots":[`+s+`],"composer_mode":`+s),
		ev(parse.HookPrompt, `,"prompt":`+s),
		ev(parse.HookThought, `,"text":`+s+`,"duration_ms":5,"model_id":`+s),
		ev(parse.HookResponse, `,"text":`+s),
		ev(parse.HookPreToolUse, `,"tool_name":"Shell","tool_use_id":"t1","tool_input":`+input),
		ev(parse.HookPostToolUse, `,"tool_name":"Shell","tool_use_id":"t1","tool_input":`+input+`,"tool_output":`+s+`,"duration":5`),
		ev(parse.HookBeforeShell, `,"command":`+s+`,"cwd":`+s),
		ev(parse.HookAfterShell, `,"command":`+s+`,"cwd":`+s+`,"output":`+s+`,"duration":7`),
		ev(parse.HookBeforeMCP, `,"tool_name":`+s+`,"server_name":`+s+`,"url":`+s+`,"command":`+s+`,"tool_input":`+input),
		ev(parse.HookAfterMCP, `,"tool_name":`+s+`,"server_name":`+s+`,"url":`+s+`,"command":`+s+`,"tool_input":`+input+`,"result_json":`+s+`,"duration":3`),
		ev(parse.HookAfterFileEdit, `,"file_path":`+s),
		ev(parse.HookBeforeReadFile, `,"file_path":`+s),
		ev(parse.HookPreToolUse, `,"tool_name":`+s+`,"tool_use_id":"t2","tool_input":`+input),
		ev(parse.HookPostToolUseFailure, `,"tool_name":`+s+`,"tool_use_id":"t2","tool_input":`+input+`,"failure_type":"error","error_message":`+s+`,"error":`+s),
		ev(parse.HookPreCompact, `,"trigger":`+s+`,"context_tokens":10`),
		ev(parse.HookSubagentStart, `,"subagent_id":"sa1","subagent_type":`+s+`,"task":`+s+`,"description":`+s+`,"subagent_model":`+s+`,"tool_call_id":"t3","parent_conversation_id":"conv-s"`),
		ev(parse.HookSubagentStop, `,"subagent_id":"sa1","subagent_type":`+s+`,"task":`+s+`,"description":`+s+`,"status":`+s+`,"message_count":2`),
		ev(parse.HookStop, `,"status":`+s),
		ev(parse.HookSessionEnd, `,"reason":`+s),
	}
}

// inClear says where under dir secret is written as it is, or as a JSON
// string writes it.
func inClear(t *testing.T, dir, secret string) []string {
	t.Helper()
	q, _ := json.Marshal(secret)
	forms := []string{secret, strings.Trim(string(q), `"`)}
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, f := range forms {
			if strings.Contains(string(b), f) {
				found = append(found, path)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// Nothing the spool would redact is on disk in clear, at any step: each
// secret shape the redactor knows, planted in every field of every hook
// event (content captured, so that every field is kept), is in no file of
// the state directory after each hook, after the build, and after a
// build killed at each of its steps and the build that finishes it.
func TestNoSecretOnDiskInClear(t *testing.T) {
	for i, fam := range redacttest.Families {
		secret := fam.Secret([]byte{byte(i), 0x5a, byte(3 * i), 0x11})
		t.Run(fam.Name, func(t *testing.T) {
			for _, kill := range []string{"", "staged", "written", "published", "consumed"} {
				dir := t.TempDir()
				environ := []string{"CURSOR_OTEL_CAPTURE_CONTENT=true", "CURSOR_OTEL_SPOOL=" + filepath.Join(dir, "spool"),
					"OTEL_EXPORTER_OTLP_HEADERS=x-api-key=" + fam.Secret([]byte{byte(i)})}
				if fam.Name == "collector credential" {
					environ[2] = "OTEL_EXPORTER_OTLP_HEADERS=x-api-key=" + secret
				}
				getenv := func(name string) string { return envlist.Get(environ, name) }
				s, err := settings.Load(settings.Flags{}, getenv)
				if err != nil {
					t.Fatal(err)
				}
				check := func(after string) {
					t.Helper()
					if files := inClear(t, dir, secret); len(files) > 0 {
						t.Fatalf("%q in clear after %s, in %v", secret, after, files)
					}
				}
				at := t0
				for _, ev := range plantedEvents(fam.Context(secret)) {
					var out strings.Builder
					Run(Config{Settings: s, Environ: environ, StateDir: dir, Stdin: strings.NewReader(ev), Stdout: &out, Now: func() time.Time { return at }})
					check("the hook for " + ev[:40])
					at = at.Add(time.Second)
				}
				if journalLeft(dir) == 0 {
					t.Fatal("nothing journaled")
				}
				b := BuildConfig{Settings: s, Environ: environ, Getenv: getenv, StateDir: dir,
					Now: func() time.Time { return at.Add(time.Minute) }, killAt: func(step string) bool { return step == kill }}
				Build(t.Context(), b)
				check("the build killed at " + cmp.Or(kill, "no step"))
				if kill != "" {
					b.killAt = nil
					Build(t.Context(), b)
					check("the build after one killed at " + kill)
				}
				if n := journalLeft(dir); n != 0 {
					t.Errorf("killed at %q: %d events left in the journal", kill, n)
				}
			}
		})
	}
}
