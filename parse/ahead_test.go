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
// line, and its error last, for every recording here and beside the
// project, and for lines of every length (tool results of megabytes,
// decoded where they are read; lines past the limit, counted), line
// endings of both kinds, a last line without one, readers that give a
// byte at a time, half, or fail part way.
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
	result := func(n int) string {
		return `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"result":{"success":{"exitCode":0,"stdout":"` +
			strings.Repeat(`line\n`, n/6) + `"}}}}}`
	}
	var mixed strings.Builder
	for i := range 600 {
		fmt.Fprintf(&mixed, `{"type":"thinking","subtype":"delta","text":"t%d","session_id":"s","timestamp_ms":%d}`+"\n", i, 1790000000000+i)
		switch i % 197 {
		case 0:
			mixed.WriteString(result(maxScratchLine+1000) + "\r\n")
		case 1:
			mixed.WriteString("\n  \r\nnot json\n" + result(blockBytes+5000) + "\n")
		case 2:
			mixed.WriteString(result(2*blockCap) + "\n" + result(blockBytes-100) + "\n")
		}
	}
	streams["mixed"] = []byte(mixed.String())
	streams["last line without a line feed"] = []byte(mixed.String() + result(blockBytes+7))
	streams["a long last line"] = []byte(mixed.String() + result(maxScratchLine+7) + "\r")
	streams["long lines"] = []byte("{}\n" + result(blockCap+10) + "\r\n{}\n" + result(maxScratchLine+10) + "\n{}")
	if len(streams) < 6 {
		t.Fatalf("%d streams, want the examples at least", len(streams))
	}
	readers := map[string]func([]byte) io.Reader{
		"whole":              func(b []byte) io.Reader { return bytes.NewReader(b) },
		"half":               func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
		"with EOF":           func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
		"failing part way":   func(b []byte) io.Reader { return failAfter(b, len(b)/2) },
		"failing at the end": func(b []byte) io.Reader { return failAfter(b, len(b)) },
		"failing in a line":  func(b []byte) io.Reader { return failAfter(b, len(b)-3) },
		"a byte at a time":   func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
	}
	for name, b := range streams {
		for rname, reader := range readers {
			if rname == "a byte at a time" && len(b) > 2<<20 {
				continue
			}
			options := [][]Option{nil, {WithoutContent()}, {WithBlankLines()}, {withMaxLine(blockCap + 2000)}}
			if rname != "whole" {
				options = options[:1]
			}
			for _, opts := range options {
				want, wantErr := decodeAll(reader(b), opts)
				var got []Event
				var gotErr error
				for batch := range DecodeAhead(context.Background(), reader(b), opts...) {
					got = append(got, batch.Events...)
					if batch.Err != nil {
						gotErr = batch.Err
					}
				}
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
					t.Errorf("%s, %s: error %v ahead, the Decoder's %v", name, rname, gotErr, wantErr)
				}
				if len(got) != len(want) {
					t.Fatalf("%s, %s: %d events ahead, %d from the Decoder", name, rname, len(got), len(want))
				}
				for i := range want {
					if !reflect.DeepEqual(got[i], want[i]) {
						t.Fatalf("%s, %s: event %d ahead is a %T of line %d, not the Decoder's %T of line %d", name, rname, i, got[i], got[i].Head().Line, want[i], want[i].Head().Line)
					}
				}
			}
		}
	}
}

// withMaxLine keeps lines up to max bytes (a test's limit, not 64 MiB).
func withMaxLine(max int) Option { return func(d *Decoder) { d.lines.max = max } }

// failAfter reads b's first n bytes, then fails.
func failAfter(b []byte, n int) io.Reader {
	return io.MultiReader(bytes.NewReader(b[:n]), iotest.ErrReader(errors.New("disk gone")))
}

// decodeAll is every event the Decoder gives of r, and its error.
func decodeAll(r io.Reader, opts []Option) ([]Event, error) {
	dec := NewDecoder(r, opts...)
	var out []Event
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
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
		long := bytes.Repeat(append(bytes.TrimRight(stream, "\n"), '\n'), 1+3000/(1+bytes.Count(stream, []byte("\n"))))
		want, _ := decodeAll(bytes.NewReader(long), nil)
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
