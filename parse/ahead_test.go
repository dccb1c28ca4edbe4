package parse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// Decoding ahead gives the events Next gives, in order, and the reader's
// error last.
func TestDecodeAhead(t *testing.T) {
	var stream strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&stream, `{"type":"thinking","subtype":"delta","text":"t%d"}`+"\n", i)
	}
	stream.WriteString("not json\n")
	failing := io.MultiReader(strings.NewReader(stream.String()), iotest.ErrReader(errors.New("disk gone")))

	var got []Event
	var last error
	for b := range DecodeAhead(context.Background(), failing) {
		got = append(got, b.Events...)
		last = b.Err
	}
	if len(got) != 1001 {
		t.Fatalf("%d events, want 1001", len(got))
	}
	for i, ev := range got[:1000] {
		if th, ok := ev.(*Thinking); !ok || th.Text != fmt.Sprintf("t%d", i) || th.Line != i+1 {
			t.Fatalf("event %d is %#v", i, ev)
		}
	}
	if _, ok := got[1000].(*Invalid); !ok {
		t.Errorf("last event %T, want *Invalid", got[1000])
	}
	if last == nil || !strings.Contains(last.Error(), "disk gone") {
		t.Errorf("last batch's error %v, want the reader's", last)
	}
}

// Cancelling ctx, or leaving the loop, stops the reading, and every
// goroutine of it ends.
func TestDecodeAheadStops(t *testing.T) {
	before := runtime.NumGoroutine()
	endless := func() io.Reader {
		return iotest.OneByteReader(&repeatReader{line: []byte(`{"type":"connection"}` + "\n")})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	for range DecodeAhead(ctx, endless()) {
		if n++; n == 1 {
			cancel() // the loop ends once the reader sees it
		}
	}
	for range DecodeAhead(context.Background(), endless()) {
		break
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond) // polled, with a deadline
	}
}

// Decoding ahead gives exactly the events the Decoder gives, line for
// line, for every recording here and beside the project, whatever its
// lines' lengths: tool results of megabytes, decoded where they are read,
// among the short lines decoded in blocks.
func TestDecodeAheadIsTheDecoder(t *testing.T) {
	paths, _ := filepath.Glob("../examples/*.ndjson")
	real, _ := filepath.Glob("../../shared/fixtures/real/*.ndjson")
	streams := map[string][]byte{}
	for _, p := range append(paths, real...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		streams[filepath.Base(p)] = b
	}
	huge := `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"result":{"success":{"exitCode":0,"stdout":"` +
		strings.Repeat(`line\n`, maxScratchLine/5) + `"}}}}}`
	var mixed strings.Builder
	for i := range 3 * batchSize {
		fmt.Fprintf(&mixed, `{"type":"thinking","subtype":"delta","text":"t%d","session_id":"s","timestamp_ms":%d}`+"\n", i, 1790000000000+i)
		switch i % 97 {
		case 0:
			mixed.WriteString(huge + "\n")
		case 1:
			mixed.WriteString("\n  \r\nnot json\n")
		}
	}
	streams["mixed"] = []byte(mixed.String())
	if len(streams) < 4 {
		t.Fatalf("%d streams, want the examples at least", len(streams))
	}
	for name, b := range streams {
		for _, opts := range [][]Option{nil, {WithoutContent()}, {WithBlankLines()}} {
			want := decodeAll(t, b, opts)
			var got []Event
			for batch := range DecodeAhead(context.Background(), bytes.NewReader(b), opts...) {
				if batch.Err != nil {
					t.Fatal(batch.Err)
				}
				got = append(got, batch.Events...)
			}
			if len(got) != len(want) {
				t.Fatalf("%s: %d events ahead, %d from the Decoder", name, len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("%s: event %d ahead is\n%#v\nthe Decoder's\n%#v", name, i, got[i], want[i])
				}
			}
		}
	}
}

// decodeAll is every event the Decoder gives of b.
func decodeAll(t *testing.T, b []byte, opts []Option) []Event {
	t.Helper()
	dec := NewDecoder(bytes.NewReader(b), opts...)
	var out []Event
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
}

// Whatever the stream, decoding ahead gives the Decoder's events: the
// fuzzer's stream, over again until it fills several blocks.
func FuzzDecodeAhead(f *testing.F) {
	seedCorpus(f, false)
	f.Add([]byte("\r\n\n{}\r\nx"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		if len(stream) == 0 || len(stream) > 4096 {
			return
		}
		long := bytes.Repeat(append(bytes.TrimRight(stream, "\n"), '\n'), 1+3*batchSize/(1+bytes.Count(stream, []byte("\n"))))
		want := decodeAll(t, long, nil)
		var got []Event
		for batch := range DecodeAhead(context.Background(), bytes.NewReader(long)) {
			got = append(got, batch.Events...)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%d events ahead, the Decoder's %d, or other events", len(got), len(want))
		}
	})
}

type repeatReader struct {
	line []byte
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.line[r.off:])
		n += c
		r.off = (r.off + c) % len(r.line)
	}
	return n, nil
}
