package spool

import (
	"context"
	"errors"
	"fmt"
	"github.com/cursor-otel/cursor-otel/internal/ostext"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/filelock"
)

var base = time.Date(2026, 11, 24, 9, 0, 0, 123456789, time.UTC)

// session makes a session's spans as the SDK hands them to an exporter: a
// root and n tools under it, with attributes of every kind, an event, an
// error status.
func session(trace0 byte, n int) []sdktrace.ReadOnlySpan {
	tid := trace.TraceID{trace0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	res := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.37.0", attribute.String("service.name", "cursor-agent"), attribute.StringSlice("host.ip", []string{"10.0.0.1"}))
	scope := instrumentation.Scope{Name: "github.com/cursor-otel/cursor-otel", Version: "1.2.3"}
	root := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled})
	var out []sdktrace.ReadOnlySpan
	for i := range n {
		sid := trace.SpanID{2, byte(i), byte(i >> 8)}
		out = append(out, tracetest.SpanStub{
			Name:        "execute_tool shell",
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}),
			Parent:      root, SpanKind: trace.SpanKindInternal,
			StartTime: base.Add(time.Duration(i) * time.Second), EndTime: base.Add(time.Duration(i)*time.Second + 250*time.Millisecond),
			Attributes: []attribute.KeyValue{attribute.String("gen_ai.tool.name", "shell"), attribute.Int64("process.exit.code", 1),
				attribute.Bool("cursor.hard_timeout", false), attribute.Float64("cursor.usage.cost", 0.0125),
				attribute.Int64Slice("cursor.lines", []int64{1, 2}), attribute.BoolSlice("b", []bool{true}), attribute.Float64Slice("f", []float64{1.5})},
			Events:   []sdktrace.Event{{Name: "cursor.retry", Time: base.Add(100 * time.Millisecond), Attributes: []attribute.KeyValue{attribute.Int("attempt", 2)}}},
			Status:   sdktrace.Status{Code: codes.Error, Description: "exit 1"},
			Resource: res, InstrumentationScope: scope,
		}.Snapshot())
	}
	return append(out, tracetest.SpanStub{
		Name: "invoke_agent cursor-agent", SpanContext: root, SpanKind: trace.SpanKindInternal,
		Parent:    trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{9, 9}, Remote: true, TraceFlags: trace.FlagsSampled}),
		StartTime: base, EndTime: base.Add(time.Minute), Resource: res, InstrumentationScope: scope,
	}.Snapshot())
}

type sent struct {
	spans []sdktrace.ReadOnlySpan
	calls int
}

func (s *sent) export(err error) Export {
	return Export{To: here, Send: func(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
		s.calls++
		if err != nil {
			return err
		}
		s.spans = append(s.spans, spans...)
		return nil
	}, Permanent: func(e error) bool { return errors.Is(e, errMalformed) }}
}

// here is where the tests' sessions were going, and are delivered.
var here = Destination{Address: "http://127.0.0.1:4317", Protocol: "grpc", Headers: map[string]string{"authorization": "Bearer tenant-a"}}

var (
	errDown      = errors.New("connection refused")
	errMalformed = errors.New("InvalidArgument")
)

// view is what an exporter reads of a span, as comparable text.
func view(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		var attrs, events string
		for _, kv := range s.Attributes() {
			attrs += string(kv.Key) + "=" + kv.Value.Type().String() + ":" + kv.Value.String() + " "
		}
		for _, e := range s.Events() {
			events += e.Name + "@" + e.Time.Format(time.RFC3339Nano) + fmt.Sprint(e.Attributes) + " "
		}
		out = append(out, fmt.Sprintf("%s %s parent=%s remote=%v %q kind=%v %s..%s [%s] [%s] %v/%s res=%s scope=%s@%s",
			s.SpanContext().TraceID(), s.SpanContext().SpanID(), s.Parent().SpanID(), s.Parent().IsRemote(), s.Name(), s.SpanKind(),
			s.StartTime().Format(time.RFC3339Nano), s.EndTime().Format(time.RFC3339Nano), attrs, events,
			s.Status().Code, s.Status().Description, s.Resource().Encoded(attribute.DefaultEncoder())+s.Resource().SchemaURL(),
			s.InstrumentationScope().Name, s.InstrumentationScope().Version))
	}
	slices.Sort(out)
	return out
}

func TestKeepThenDeliverGivesTheSameSpans(t *testing.T) {
	d := Open(filepath.Join(t.TempDir(), "spool"), 0)
	want := slices.Concat(session(1, 3), session(2, 700)) // the second in two parts
	k, err := d.Keep(here, want)
	if err != nil || k.Sessions != 2 || k.Spans != 705 || k.Dropped != 0 {
		t.Fatalf("kept %+v, %v", k, err)
	}
	if !d.HasKept(here) {
		t.Fatal("nothing pending after Keep")
	}
	var got sent
	r, err := d.Deliver(context.Background(), got.export(nil), false)
	if err != nil || r.Err != nil || r.Sessions != 2 || r.Spans != 705 || r.Left != 0 {
		t.Fatalf("delivery %+v, %v", r, err)
	}
	if got.calls != 3 {
		t.Errorf("%d exports, want 3 (1 + a session of 701 spans in two parts)", got.calls)
	}
	if diff := cmp.Diff(view(want), view(got.spans)); diff != "" {
		t.Errorf("delivered spans differ from the kept (-kept +delivered):\n%s", diff)
	}
	if d.HasKept(here) {
		t.Error("still pending after delivery")
	}
	// Delivered once: a second delivery sends nothing.
	var again sent
	if r, _ := d.Deliver(context.Background(), again.export(nil), false); r.Spans != 0 || again.calls != 0 {
		t.Errorf("a second delivery sent %d spans", r.Spans)
	}
}

func TestFilesAreTheUsersAlone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	d := Open(dir, 0)
	if _, err := d.Keep(here, session(1, 1)); err != nil {
		t.Fatal(err)
	}
	if !ostext.KeepsModes {
		t.Skip("Windows keeps no mode bits: the profile's access lists keep the spool private")
	}
	fi, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("spool directory %v, want 0700", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		info, _ := e.Info()
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, want 0600", e.Name(), info.Mode().Perm())
		}
	}
}

// A collector that is down leaves everything kept; one that refuses data
// as malformed has it dropped, said.
func TestDeliveryFailures(t *testing.T) {
	d := Open(filepath.Join(t.TempDir(), "spool"), 0)
	if _, err := d.Keep(here, slices.Concat(session(1, 2), session(2, 2))); err != nil {
		t.Fatal(err)
	}
	var down sent
	r, err := d.Deliver(context.Background(), down.export(errDown), false)
	if err != nil || !errors.Is(r.Err, errDown) || r.Left != 2 || r.Sessions != 0 || down.calls != 1 {
		t.Fatalf("collector down: %+v, %v, %d calls; want 2 left after one try", r, err, down.calls)
	}
	var refused sent
	r, _ = d.Deliver(context.Background(), refused.export(errMalformed), false)
	if r.Err != nil || r.Rejected != 2 || r.Left != 0 || !errors.Is(r.RejectedErr, errMalformed) {
		t.Fatalf("refused as malformed: %+v; want both dropped", r)
	}
	if d.HasKept(here) {
		t.Error("malformed sessions are still kept")
	}
}

// Past its bound the spool drops the oldest sessions, whole, and the next
// delivery says how many.
func TestBoundDropsTheOldestFirst(t *testing.T) {
	d := Open(filepath.Join(t.TempDir(), "spool"), 0)
	var stamp int64
	d.now = func() time.Time { stamp++; return time.Unix(0, stamp) }
	if _, err := d.Keep(here, session(1, 50)); err != nil {
		t.Fatal(err)
	}
	parts, _ := d.list()
	d.Max = parts[0].size*3 + parts[0].size/2 // room for three such sessions
	dropped := 0
	for i := byte(2); i <= 5; i++ {
		k, err := d.Keep(here, session(i, 50))
		if err != nil {
			t.Fatal(err)
		}
		dropped += k.Dropped
	}
	if dropped != 2 {
		t.Errorf("%d sessions dropped, want 2", dropped)
	}
	var got sent
	r, _ := d.Deliver(context.Background(), got.export(nil), false)
	if r.Sessions != 3 || r.Dropped.Bound != 2 {
		t.Fatalf("delivery %+v, want 3 sessions and 2 said dropped", r)
	}
	traces := map[byte]bool{}
	for _, s := range got.spans {
		traces[s.SpanContext().TraceID()[0]] = true
	}
	if traces[1] || traces[2] || !traces[3] || !traces[4] || !traces[5] {
		t.Errorf("sessions delivered %v, want the newest three (3, 4, 5)", traces)
	}
	if r, _ := d.Deliver(context.Background(), got.export(nil), false); r.Dropped.Any() {
		t.Errorf("the drop was said twice: %+v", r)
	}
}

// A damaged file is dropped with a count, and the rest still goes.
func TestDamagedFilesAreSkipped(t *testing.T) {
	d := Open(filepath.Join(t.TempDir(), "spool"), 0)
	if _, err := d.Keep(here, slices.Concat(session(1, 2), session(2, 2))); err != nil {
		t.Fatal(err)
	}
	parts, _ := d.list()
	path := filepath.Join(d.Path, parts[0].name)
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, b[:len(b)-7], 0o600); err != nil {
		t.Fatal(err)
	}
	var got sent
	r, err := d.Deliver(context.Background(), got.export(nil), false)
	if err != nil || r.Damaged != 1 || r.Sessions != 1 || len(got.spans) != 3 {
		t.Errorf("delivery %+v (%d spans), %v; want one damaged and the other session delivered", r, len(got.spans), err)
	}
}

// One deliverer at a time.
func TestSecondDelivererIsTurnedAway(t *testing.T) {
	d := Open(filepath.Join(t.TempDir(), "spool"), 0)
	if _, err := d.Keep(here, session(1, 1)); err != nil {
		t.Fatal(err)
	}
	unlock, err := filelock.Lock(filepath.Join(d.Path, lockFile), false)
	if err != nil {
		t.Fatal(err)
	}
	var got sent
	if _, err := d.Deliver(context.Background(), got.export(nil), false); !errors.Is(err, ErrBusy) || got.calls != 0 {
		t.Errorf("while another delivers: %v, %d exports; want ErrBusy and none", err, got.calls)
	}
	unlock()
	if r, err := d.Deliver(context.Background(), got.export(nil), false); err != nil || r.Sessions != 1 {
		t.Errorf("after: %+v, %v", r, err)
	}
}

// Whatever bytes a part file holds, reading it is an answer, never a
// panic, and a file cut short is never read as a smaller part.
func FuzzDecode(f *testing.F) {
	s := session(1, 3)
	good, _ := encode(toOTLP(s, convert(s)))
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte("cursor-otel spool 1\n\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		td, err := decode(b)
		if err != nil {
			return
		}
		if _, err := fromOTLP(td); err != nil {
			return
		}
		if len(b) < len(good) && string(good[:len(b)]) == string(b) {
			t.Fatalf("a prefix of %d bytes of a good file decoded", len(b))
		}
	})
}

// A part a writer died writing is removed once it is an hour old; one
// being written now is left alone.
func TestStalePartsAreRemoved(t *testing.T) {
	d := Open(filepath.Join(t.TempDir(), "spool"), 0)
	if _, err := d.Keep(here, session(1, 1)); err != nil {
		t.Fatal(err)
	}
	old, fresh := filepath.Join(d.Path, ".part-1"), filepath.Join(d.Path, ".part-2")
	for _, p := range []string{old, fresh} {
		if err := os.WriteFile(p, []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	an := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(old, an, an); err != nil {
		t.Fatal(err)
	}
	var got sent
	if r, err := d.Deliver(context.Background(), got.export(nil), false); err != nil || r.Sessions != 1 || r.Damaged != 0 {
		t.Fatalf("delivery %+v, %v", r, err)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("the part left an hour ago is still there")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("the part being written was removed")
	}
}

// A replay with no collector keeps thousands of sessions, a batch at a
// time; keeping stays linear in them (the directory is not listed at
// every batch).
func BenchmarkKeepManySessions(b *testing.B) {
	batches := make([][]sdktrace.ReadOnlySpan, 100)
	for i := range batches {
		for j := range 40 {
			batches[i] = append(batches[i], session(byte(j), 2)...)
		}
	}
	for b.Loop() {
		d := Open(filepath.Join(b.TempDir(), "spool"), 0)
		for _, batch := range batches {
			if _, err := d.Keep(here, batch); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// A session kept for one destination is delivered only to it: another
// address, or the same address with another tenant's credentials, gets
// nothing and is told how many wait, and for which address; redirect,
// asked for, sends them. No credential is written down.
func TestKeptSessionGoesOnlyWhereItWasGoing(t *testing.T) {
	d := Open(t.TempDir(), 0)
	if _, err := d.Keep(here, session(1, 2)); err != nil {
		t.Fatal(err)
	}
	otherTenant := Destination{Address: here.Address, Protocol: "grpc", Headers: map[string]string{"authorization": "Bearer tenant-b"}}
	otherAddress := Destination{Address: "https://collector.example:4317", Protocol: "grpc", Headers: here.Headers}
	for _, to := range []Destination{otherTenant, otherAddress} {
		if d.HasKept(to) {
			t.Errorf("pending for %v: want only for where it was going", to)
		}
		var got sent
		exp := got.export(nil)
		exp.To = to
		r, err := d.Deliver(context.Background(), exp, false)
		if err != nil || got.calls != 0 || r.Sessions != 0 {
			t.Fatalf("delivered to %v: %d calls, %+v, %v; want none", to, got.calls, r, err)
		}
		if len(r.Waiting) != 1 || r.Waiting[0].Address != here.Shown() || r.Waiting[0].Sessions != 1 {
			t.Errorf("waiting %+v, want 1 session for %s", r.Waiting, here.Shown())
		}
	}
	if !d.HasKept(here) || !d.Holds() {
		t.Fatal("the session no longer kept for its own destination")
	}
	files, _ := os.ReadDir(d.Path)
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(d.Path, f.Name()))
		if strings.Contains(string(b), "tenant-a") || strings.Contains(f.Name(), "tenant-a") {
			t.Errorf("%s holds the credentials in clear", f.Name())
		}
	}

	var got sent
	exp := got.export(nil)
	exp.To = otherTenant
	r, err := d.Deliver(context.Background(), exp, true)
	if err != nil || r.Sessions != 1 || len(got.spans) != 3 || len(r.Waiting) != 0 {
		t.Fatalf("redirected: %+v, %d spans, %v; want the session, whole", r, len(got.spans), err)
	}
	if d.Holds() {
		t.Error("still kept after its delivery")
	}
}

// Parts kept before destinations were written down wait for a redirect:
// where they were going is not known.
func TestPartsOfUnknownDestinationWait(t *testing.T) {
	d := Open(t.TempDir(), 0)
	if _, err := d.Keep(here, session(1, 1)); err != nil {
		t.Fatal(err)
	}
	parts, _ := d.list()
	old := strings.TrimSuffix(parts[0].name, "-"+parts[0].dest+partSuffix) + partSuffix
	if err := os.Rename(filepath.Join(d.Path, parts[0].name), filepath.Join(d.Path, old)); err != nil {
		t.Fatal(err)
	}
	for _, keyless := range []bool{false, true} {
		if keyless { // kept by an earlier cursor-otel alone: no key either
			if err := os.Remove(filepath.Join(d.Path, keyFile)); err != nil {
				t.Fatal(err)
			}
		}
		var got sent
		r, err := d.Deliver(context.Background(), got.export(nil), false)
		if err != nil || got.calls != 0 || len(r.Waiting) != 1 || r.Waiting[0].Sessions != 1 || !strings.Contains(r.Waiting[0].Address, "did not write down") {
			t.Fatalf("keyless %v: %+v, %d calls, %v; want it waiting, unknown", keyless, r, got.calls, err)
		}
	}
	var got sent
	if r, _ := d.Deliver(context.Background(), got.export(nil), true); r.Sessions != 1 {
		t.Fatalf("redirected: %+v", r)
	}
}

// The bound counts every destination together, oldest first.
func TestBoundCountsEveryDestination(t *testing.T) {
	d := Open(t.TempDir(), 0)
	d.now = func() time.Time { return base }
	other := Destination{Address: "http://elsewhere:4317", Protocol: "grpc"}
	if _, err := d.Keep(other, session(1, 50)); err != nil {
		t.Fatal(err)
	}
	parts, _ := d.list()
	d.Max = parts[0].size + parts[0].size/2 // room for one session of this size
	d.now = func() time.Time { return base.Add(time.Hour) }
	k, err := d.Keep(here, session(2, 50))
	if err != nil || k.Dropped != 1 {
		t.Fatalf("kept %+v, %v; want the other destination's older session dropped", k, err)
	}
	if d.HasKept(other) || !d.HasKept(here) {
		t.Error("want the newer session kept, the older dropped")
	}
}
