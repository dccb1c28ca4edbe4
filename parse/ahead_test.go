package parse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
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

// A reader that stops reading early stops the decoder.
func TestDecodeAheadCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	endless := iotest.OneByteReader(&repeatReader{line: []byte(`{"type":"connection"}` + "\n")})
	batches := DecodeAhead(ctx, endless)
	<-batches
	cancel()
	for range batches { // closed once the decoder sees the cancel
	}
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
