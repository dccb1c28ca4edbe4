package collector

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

// sessionName is the session span's name.
const sessionName = "invoke_agent cursor-agent"

// run is one cursor-otel run of the fleet: a wrapped agent or a replay.
type run struct {
	kind  string
	fails bool // the session fails, at its very end
	slow  bool // longer than the samplers' slow threshold
	args  []string
	env   []string
}

// wrappedRun is cursor-otel in front of the stand-in agent replaying a
// recording in about length, its times moved to now; fails makes the
// agent exit 1 after a stream that succeeded, so the session fails only
// when it ends.
func wrappedRun(recording string, recorded, length time.Duration, fails bool) run {
	kind := "wrapped " + length.String()
	exit := "0"
	if fails {
		kind, exit = kind+" failing", "1"
	}
	speed := float64(recorded) / float64(length)
	return run{kind: kind, fails: fails,
		args: []string{"-p", "--output-format", "stream-json", "fix the failing test"},
		env: []string{"CURSOR_OTEL_AGENT=" + fakeAgent, "FAKEAGENT_STREAM=" + filepath.Join(root, recording),
			"FAKEAGENT_REBASE=1", "FAKEAGENT_SPEED=" + strconv.FormatFloat(speed, 'f', 3, 64), "FAKEAGENT_EXIT=" + exit}}
}

// replayRun is cursor-otel replaying a recording, moved to now.
func replayRun(recording string, fails, slow bool) run {
	return run{kind: "replay " + filepath.Base(recording), fails: fails, slow: slow,
		args: []string{"replay", "--now", "--quiet", filepath.Join(root, recording)}}
}

// session is what one run exported, as its own console exporter printed
// it beside the OTLP export: the spans a collector should deliver.
type session struct {
	run
	traceID        string
	spans          map[string]string // span id: name
	sessionSpan    string
	started, ended time.Time
	exit           int
	stderr         []byte
}

// consoleSpan is the part of a span the SDK's console exporter prints
// that the test reads.
type consoleSpan struct {
	Name        string
	SpanContext struct{ TraceID, SpanID string }
	Status      struct{ Code string }
}

// start runs r through cursor-otel to endpoint with protocol, and reads
// back the spans it exported. extra is more environment.
func (r run) start(t *testing.T, endpoint, protocol string, extra []string) *session {
	t.Helper()
	cmd := exec.Command(cursorOtel, r.args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL=" + protocol,
		"OTEL_TRACES_EXPORTER=otlp,console", "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=delta",
		"CURSOR_OTEL_STALL_THRESHOLD=1s", "GITHUB_ACTIONS=true", "GITHUB_WORKFLOW=agent",
		// Two cores run the fleet, four collectors and Prometheus at
		// once: a gateway may take more than the default 3 s to answer.
		"CURSOR_OTEL_FLUSH_TIMEOUT=30s"}, r.env...)
	cmd.Env = append(cmd.Env, extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	s := &session{run: r, spans: map[string]string{}, started: time.Now()}
	proctest.Start(t, cmd, 2*time.Minute)
	err := cmd.Wait()
	s.ended = time.Now()
	if exit, ok := err.(*exec.ExitError); ok {
		s.exit = exit.ExitCode()
	} else if err != nil {
		t.Errorf("%s: %v", r.kind, err)
	}
	s.stderr = stderr.Bytes()
	sc := bufio.NewScanner(bytes.NewReader(s.stderr))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var sp consoleSpan
		if !bytes.HasPrefix(sc.Bytes(), []byte("{")) || json.Unmarshal(sc.Bytes(), &sp) != nil || sp.SpanContext.SpanID == "" {
			continue
		}
		if s.traceID != "" && sp.SpanContext.TraceID != s.traceID {
			t.Errorf("%s: spans of traces %s and %s; want one session", r.kind, s.traceID, sp.SpanContext.TraceID)
		}
		s.traceID = sp.SpanContext.TraceID
		s.spans[sp.SpanContext.SpanID] = sp.Name
		if sp.Name == sessionName {
			s.sessionSpan = sp.SpanContext.SpanID
			if failed := sp.Status.Code == "Error"; failed != r.fails {
				t.Errorf("%s: session status %s, want failed=%v", r.kind, sp.Status.Code, r.fails)
			}
		}
	}
	if s.sessionSpan == "" {
		t.Errorf("%s, started %s: exit %d, no session span exported; stderr:\n%.2000s", r.kind, s.started.Format("15:04:05.000"), s.exit, s.stderr)
	}
	return s
}
