package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/summary"
)

var githubActions = []string{
	"GITHUB_ACTIONS=true", "GITHUB_SERVER_URL=https://github.com", "GITHUB_REPOSITORY=acme/shop", "GITHUB_WORKFLOW=CI",
	"GITHUB_RUN_ID=9876543210", "GITHUB_JOB=agent", "GITHUB_SHA=4b825dc6", "GITHUB_REF=refs/heads/main",
	"GITHUB_REF_NAME=main", "GITHUB_REF_TYPE=branch", "RUNNER_NAME=runner-3",
}

// In CI, the trace says which pipeline, job, branch and commit it was;
// OTEL_RESOURCE_ATTRIBUTES wins over what is detected.
func TestCIResource(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	env := append([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "OTEL_RESOURCE_ATTRIBUTES=cicd.pipeline.task.name=renamed"}, githubActions...)
	if r := runBinary(t, env, nil, "replay", "--quiet", "examples/failed-run.ndjson"); r.exit != 0 {
		t.Fatalf("exit %d: %s", r.exit, r.stderr)
	}
	for key, want := range map[string]string{
		"cursor.ci.system": "github_actions", "cicd.pipeline.name": "CI", "cicd.pipeline.run.id": "9876543210",
		"cicd.pipeline.run.url.full": "https://github.com/acme/shop/actions/runs/9876543210", "cicd.pipeline.task.name": "renamed",
		"vcs.repository.url.full": "https://github.com/acme/shop", "vcs.ref.head.name": "main", "vcs.ref.head.revision": "4b825dc6",
		"cicd.worker.name": "runner-3", "service.name": "cursor-agent",
	} {
		if got := resourceAttr(recv.Spans(), key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
}

// A clone URL with a token in it is redacted before it leaves.
func TestCIResourceIsRedacted(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "BUILDKITE=true",
		"BUILDKITE_REPO=https://x-access-token:ghs_0123456789abcdefghijABCDEFGHIJ012345@github.com/acme/shop.git"}
	runBinary(t, env, nil, "replay", "--quiet", "examples/failed-run.ndjson")
	if got := resourceAttr(recv.Spans(), "vcs.repository.url.full"); got != "https://x-access-token:[REDACTED]@github.com/acme/shop.git" {
		t.Errorf("repository URL %q", got)
	}
}

// The run summary: Markdown appended for a CI page ($GITHUB_STEP_SUMMARY
// gathers every step's), JSON for scripts, in wrap mode and in replay.
func TestSummaryFiles(t *testing.T) {
	dir := t.TempDir()
	md, js := filepath.Join(dir, "step-summary.md"), filepath.Join(dir, "summary.jsonl")
	os.WriteFile(md, []byte("## Earlier step\n\n"), 0o644)

	w := runWrapped(t, wrapSpec{args: streamArgs(), env: append([]string{
		"FAKEAGENT_STREAM=examples/parallel-tools.ndjson", "FAKEAGENT_REBASE=1", "GITHUB_STEP_SUMMARY=" + md,
		"CURSOR_OTEL_SUMMARY=" + md, "CURSOR_OTEL_SUMMARY_JSON=" + js, "CURSOR_OTEL_TRACE_URL=http://jaeger:16686/trace/{trace_id}"}, githubActions...)})
	if w.exit != 0 || w.stderr != "" {
		t.Fatalf("exit %d, stderr %q", w.exit, w.stderr)
	}
	r := runBinary(t, nil, nil, "--summary", md, "--summary-json", js, "--quiet", "replay", "examples/parallel-tools.ndjson")
	if r.exit != 0 {
		t.Fatalf("replay: exit %d, %s", r.exit, r.stderr)
	}

	page, _ := os.ReadFile(md)
	if !bytes.HasPrefix(page, []byte("## Earlier step\n\n### cursor-agent succeeded in ")) || bytes.Count(page, []byte("### cursor-agent succeeded")) != 2 {
		t.Errorf("step summary:\n%s\nwant the earlier step kept and two reports appended", page)
	}
	session := sessionSpan(t, w.spans)
	if !bytes.Contains(page, []byte("(http://jaeger:16686/trace/"+session.TraceID+")")) {
		t.Errorf("the report does not link the wrapped run's trace %s", session.TraceID)
	}
	for _, want := range []string{"| shell | 3 | 31.74s | 11.47s | 14.88s |", "`npm test --prefix web` | error (exit 1) |", "reconnecting 1.10s, 1 retries"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}

	lines := strings.Split(strings.TrimSpace(readFile(t, js)), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d JSON reports, want 2", len(lines))
	}
	var wrapped, replayed summary.Report
	if json.Unmarshal([]byte(lines[0]), &wrapped) != nil || json.Unmarshal([]byte(lines[1]), &replayed) != nil {
		t.Fatalf("reports are not JSON: %q", lines)
	}
	// Replayed, the figures are the recording's, exactly.
	if s := replayed.Split; replayed.WallMs != 19400 || s.ToolsMs != 14917 || s.ModelMs != 4483 || replayed.ToolKinds[0].TotalMs != 31741 {
		t.Errorf("replayed: wall %d, split %+v, kinds %+v", replayed.WallMs, s, replayed.ToolKinds)
	}
	// Live (the stand-in replays 100 times faster), they add up the same way.
	s := wrapped.Split
	if s.ModelMs+s.ToolsMs+s.IdleMs != wrapped.WallMs || s.ToolsMs <= 0 || s.IdleMs < 0 || wrapped.ExitCode == nil || *wrapped.ExitCode != 0 {
		t.Errorf("wrapped: wall %d, split %+v, exit %v", wrapped.WallMs, s, wrapped.ExitCode)
	}
	if k := wrapped.ToolKinds[0]; k.Count != 3 || k.TotalMs < s.ToolsMs {
		t.Errorf("wrapped: shell %+v: three calls whose durations add up to more than their union %d", k, s.ToolsMs)
	}
}

func TestInvalidTraceparentIsNoted(t *testing.T) {
	w := runWrapped(t, wrapSpec{args: streamArgs(), env: []string{"FAKEAGENT_STREAM=examples/failed-run.ndjson", "TRACEPARENT=00-garbage"}})
	if got := value(sessionSpan(t, w.spans), "cursor.traceparent_ignored"); got != "00-garbage" || w.stderr != "" {
		t.Errorf("note %q, stderr %q", got, w.stderr)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
