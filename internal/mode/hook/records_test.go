package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/spanmap"
)

// aRecord is a span a hook recorded.
var aRecord = spanmap.SpanRecord{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, Name: "execute_tool shell"}

// Records are taken only for their own destination (all of them to
// redirect); an earlier cursor-otel's, with no destination, and a dead
// hook's unfiled ones wait for a redirect; one being filed now is left.
func TestRecordsAreTakenForTheirDestination(t *testing.T) {
	dir := t.TempDir()
	line, err := json.Marshal(aRecord)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, n int) {
		var b []byte
		for range n {
			b = append(append(b, line...), '\n')
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("spool-aaaa.ndjson", 2)
	write("spool-bbbb.ndjson", 3)
	write("spool.ndjson", 1)     // an earlier cursor-otel's
	write("records-1.ndjson", 4) // a hook that died before filing them
	write("records-2.ndjson", 5) // a hook filing them now
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "records-1.ndjson"), old, old); err != nil {
		t.Fatal(err)
	}
	took := func(ids map[string]bool, redirect bool) int {
		recs, err := takeSpool(dir, ids, redirect)
		if err != nil {
			t.Fatal(err)
		}
		return len(recs)
	}
	if n := took(map[string]bool{"aaaa": true}, false); n != 2 {
		t.Errorf("took %d for aaaa, want its 2", n)
	}
	if n := took(map[string]bool{"aaaa": true}, false); n != 0 {
		t.Errorf("took %d again", n)
	}
	if pendingRecords(dir, map[string]bool{"aaaa": true}) || !pendingRecords(dir, map[string]bool{"bbbb": true}) {
		t.Error("pending: want bbbb's alone")
	}
	if n := took(map[string]bool{"cccc": true}, true); n != 3+1+4 {
		t.Errorf("redirected %d, want bbbb's 3, the earlier 1 and the dead hook's 4", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "records-2.ndjson")); err != nil {
		t.Error("the records a hook is filing now were taken")
	}
}

// A hook files what it recorded under its destination.
func TestFileRecords(t *testing.T) {
	dir := t.TempDir()
	if err := appendSpool(dir, []spanmap.SpanRecord{aRecord, aRecord}); err != nil {
		t.Fatal(err)
	}
	if err := fileRecords(dir, "dddd"); err != nil {
		t.Fatal(err)
	}
	if n := countLines(recordsFile(dir, "dddd")); n != 2 {
		t.Errorf("%d records filed, want 2", n)
	}
	if _, err := os.Stat(ownRecords(dir)); err == nil {
		t.Error("the process's own file is left")
	}
}
