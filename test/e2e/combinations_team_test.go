//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The team metrics' cells: a wrapped run and an ACP session with metrics
// on, under two install shapes, whatever the spool holds and the
// collector does: the user's run is untouched, and a collector that takes
// metrics gets the session's, each point saying its surface and naming no
// session, path or command.
func init() {
	modes = append(modes,
		mode{name: "wrap, team metrics", agentArgs: userArgs, delivers: true, variant: true, run: func(t *testing.T, c *cell) result {
			r := c.start(t, c.dropIn, []string{"OTEL_METRICS_EXPORTER=otlp"}, userArgs...)
			want, _ := os.ReadFile("examples/fix-failing-test.ndjson")
			if r.stdout != string(want) || r.exit != 0 {
				t.Errorf("stdout the agent's: %v, exit %d; want the agent's, byte for byte, and 0", r.stdout == string(want), r.exit)
			}
			// The stream's one edit: a line added, a line removed.
			checkCellMetrics(t, c, "cli", 1, 1)
			return r
		}},
		mode{name: "acp, team metrics", acp: true, agentArgs: []string{"acp"}, delivers: true, variant: true, run: func(t *testing.T, c *cell) result {
			record := filepath.Join(c.dir, "acp-record.json")
			e := startEditor(t, c.dropIn, append(slices.Clone(c.env), "FAKEACP_RECORD="+record, "OTEL_METRICS_EXPORTER=otlp"), "acp")
			sid := e.newSession()
			if a := e.prompt(sid, "team", nil); a.eof || a.Error != nil {
				t.Fatalf("the editor's turn: %+v; stderr %q", a, e.stderr.String())
			}
			r := result{exit: e.close(), stderr: e.stderr.String()}
			if r.exit != 0 {
				t.Errorf("exit %d, want the agent's 0; stderr %q", r.exit, r.stderr)
			}
			rec := readACPRecord(t, record)
			if rec.Read != e.sent.String() || rec.Wrote != e.got.String() {
				t.Errorf("the session's bytes changed on the way")
			}
			// The team turn's diff: 3 lines added, 1 removed.
			checkCellMetrics(t, c, "acp", 3, 1)
			return r
		}},
	)
}

// checkCellMetrics checks, when the collector is up, the metrics it got:
// the lines changed, and every point saying its surface and bounded.
func checkCellMetrics(t *testing.T, c *cell, surface string, added, removed float64) {
	t.Helper()
	if c.collector != collUp {
		return
	}
	_, points, _ := exportedMetrics(t, c.recv.Metrics())
	_, a := counts(points["cursor.lines_of_code"], "cursor.lines.type=added", "cursor.surface="+surface)
	_, r := counts(points["cursor.lines_of_code"], "cursor.lines.type=removed", "cursor.surface="+surface)
	if a != added || r != removed {
		b, _ := json.Marshal(points["cursor.lines_of_code"])
		t.Errorf("lines +%g -%g, want +%g -%g: %s", a, r, added, removed, b)
	}
	for name, ps := range points {
		for _, p := range ps {
			if !strings.Contains(","+p.attrs+",", ",cursor.surface="+surface+",") {
				t.Errorf("%s point %s: not cursor.surface=%s", name, p.attrs, surface)
			}
		}
	}
	bounded(t, points)
}
