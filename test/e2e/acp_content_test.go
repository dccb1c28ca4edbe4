//go:build unix

package e2e

import (
	"io"
	"strings"
	"syscall"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// TestACPContentOnlyWhenCaptured: a prompt's and an answer's text leave
// only with content capture, and then redacted.
func TestACPContentOnlyWhenCaptured(t *testing.T) {
	secret := "ghp_" + strings.Repeat("a1B2", 9)
	for _, capture := range []bool{false, true} {
		recv := otlptest.StartGRPC(t)
		env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeACP}
		if capture {
			env = append(env, "CURSOR_OTEL_CAPTURE_CONTENT=true")
		}
		e := startEditor(t, binary, env, "acp")
		sid := e.newSession()
		e.prompt(sid, "push with token "+secret, nil)
		spans := waitSpans(t, recv, "the turn", func(s []golden.Span) bool { return len(roots(s)) == 1 })
		e.close()
		root := roots(spans)[0]
		in, out := value(root, "gen_ai.input.messages"), value(root, "gen_ai.output.messages")
		if strings.Contains(golden.Render(spans), secret) {
			t.Errorf("capture %v: the secret left the machine", capture)
		}
		if capture && (!strings.Contains(in, "push with token") || !strings.Contains(out, "ok")) {
			t.Errorf("captured: input %q output %q", in, out)
		}
		if !capture && (in != "" || out != "") {
			t.Errorf("not captured, yet input %q output %q", in, out)
		}
	}
}

// TestACPSignalForwarded: SIGTERM to cursor-otel reaches the agent once;
// the exit status is the agent's (128+15).
func TestACPSignalForwarded(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	e := startEditor(t, binary, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "CURSOR_OTEL_AGENT=" + fakeACP}, "acp")
	e.newSession()
	if err := e.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The agent's output ends with it (stdin still open: the agent's end
	// is the signal's, not the editor's).
	rest, _ := io.ReadAll(e.out)
	e.got.Write(rest)
	if code := e.close(); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d, want %d", code, 128+int(syscall.SIGTERM))
	}
}
