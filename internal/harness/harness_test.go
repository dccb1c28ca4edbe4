package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

// turn ends one invoke_agent root, as a mode's span model would.
func turn(h *Harness, conversation string) trace.TraceID {
	_, root := h.Provider.Tracer().Start(context.Background(), spanmap.RootName)
	root.SetAttributes(spanmap.OperationName.String(spanmap.OpInvokeAgent), spanmap.ConversationID.String(conversation))
	root.End()
	return root.SpanContext().TraceID()
}

// reportLines are the reports in a --summary-json file; none when there
// is no file.
func reportLines(t *testing.T, file string) []map[string]any {
	t.Helper()
	b, _ := os.ReadFile(file)
	var out []map[string]any
	for d := json.NewDecoder(bytes.NewReader(b)); d.More(); {
		var m map[string]any
		if err := d.Decode(&m); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, m)
	}
	return out
}

// TestHarnessReports: each finished trace's report is written (held
// until Close when asked), whether the provider exports or not; what
// could not be set up is said, redacted.
func TestHarnessReports(t *testing.T) {
	for _, tt := range []struct {
		name     string
		env      []string
		hold     bool
		exported bool
	}{
		{"no exporter", []string{"OTEL_TRACES_EXPORTER=none", "OTEL_METRICS_EXPORTER=none"}, false, true},
		{"held until close", []string{"OTEL_TRACES_EXPORTER=none", "OTEL_METRICS_EXPORTER=none"}, true, true},
		{"an exporter that cannot be made", []string{"OTEL_TRACES_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_PROTOCOL=carrier-pigeon-s3cret", "OTEL_METRICS_EXPORTER=none"}, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "runs.jsonl")
			s := settings.Settings{SummaryJSON: file, TraceURL: "http://jaeger/trace/{trace_id}", DefaultRedaction: true}
			h := Start(context.Background(), Setup{Settings: s, Environ: tt.env, Secrets: []string{"carrier-pigeon-s3cret"}, HoldJSON: tt.hold})
			if (h.ExportErr == nil) != tt.exported {
				t.Fatalf("export error %v, want one: %v", h.ExportErr, !tt.exported)
			}
			for _, note := range h.Notes() {
				if strings.Contains(note, "s3cret") || !strings.HasSuffix(note, "; nothing exported") {
					t.Errorf("note %q: want it redacted, saying nothing is exported", note)
				}
			}
			id := turn(h, "conv-1")
			if got := reportLines(t, file); tt.hold == (len(got) != 0) {
				t.Errorf("before Close: %d reports (held: %v)", len(got), tt.hold)
			}
			if _, err := h.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			got := reportLines(t, file)
			if len(got) != 1 || got[0]["session_id"] != "conv-1" || got[0]["trace_url"] != "http://jaeger/trace/"+id.String() {
				t.Errorf("reports: %v", got)
			}
		})
	}
}
