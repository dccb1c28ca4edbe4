//go:build linux

package e2e

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/golden"
)

// The ACP cells: an editor drives `cursor-agent acp` (or `cursor-otel
// acp`) through every install shape, whatever the spool holds and the
// collector does: the agent runs once with exactly `acp`, the editor's
// session works and is untouched, and a collector that takes spans gets
// the turn whole.
func init() {
	modes = append(modes, mode{name: "acp", acp: true, agentArgs: []string{"acp"}, delivers: true, run: runACPCell})
}

func runACPCell(t *testing.T, c *cell) result {
	record := filepath.Join(c.dir, "acp-record.json")
	e := startEditor(t, c.dropIn, append(slices.Clone(c.env), "FAKEACP_RECORD="+record), "acp")
	sid := e.newSession()
	if a := e.prompt(sid, "work", nil); a.eof || a.Error != nil {
		t.Fatalf("the editor's turn: %+v; stderr %q", a, e.stderr.String())
	}
	if c.collector == collUp {
		// While the session is open (a session kept before may arrive too).
		waitSpans(t, c.recv, "the turn", func(s []golden.Span) bool {
			s = slices.DeleteFunc(s, func(s golden.Span) bool { return s.TraceID == c.keptTrace })
			return len(roots(s)) == 1 && len(spansNamed(s, "execute_tool ")) == 2 && len(spansNamed(s, "request_permission")) == 1
		})
	}
	r := result{exit: e.close(), stderr: e.stderr.String()}
	if r.exit != 0 {
		t.Errorf("exit %d, want the agent's 0; stderr %q", r.exit, r.stderr)
	}
	rec := readACPRecord(t, record)
	if rec.Read != e.sent.String() || rec.Wrote != e.got.String() {
		t.Errorf("the session's bytes changed on the way (editor wrote %d, agent read %d; agent wrote %d, editor read %d)",
			e.sent.Len(), len(rec.Read), len(rec.Wrote), e.got.Len())
	}
	return r
}
