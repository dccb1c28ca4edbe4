package compare

import "testing"

// A hook conversation's end in a --summary-json file is no run: compare
// reads the runs around it.
func TestSummariesSkipAConversationsEnd(t *testing.T) {
	data := []byte(`{"trace_id":"a","wall_ms":1000,"outcome":"success"}
{"session_end":{"session_id":"c","reason":"user_close","turns":1,"at":"2026-12-04T10:00:00Z"}}
{"trace_id":"b","wall_ms":2000,"outcome":"success"}
`)
	reports, ok, err := readSummaries(data)
	if err != nil || !ok || len(reports) != 2 || reports[1].TraceID != "b" {
		t.Errorf("read %d reports (%v, %v), want the two runs", len(reports), ok, err)
	}
}
