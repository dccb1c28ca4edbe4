package acp

import (
	"bytes"
	"slices"
	"testing"
	"time"
)

// A tracer that falls behind loses trace data, never traffic: past the
// queue's bound chunks are dropped and counted, and the direction resumes
// at its next whole line; the other direction is untouched.
func TestTapQueueDropsPastItsBound(t *testing.T) {
	q := newTapQueue()
	now := time.Now()
	big := append(bytes.Repeat([]byte("x"), 20<<20), '\n')
	q.push(false, []byte(`{"a":1}`+"\n"), now)
	q.push(false, big, now)              // queued
	q.push(false, big[:len(big)-1], now) // past the bound: dropped, a line cut
	q.push(true, []byte("editor\n"), now)
	q.push(false, []byte("rest of the cut line\nnext\n"), now)
	q.close()
	if got := q.Untraced(); got != int64(len(big)-1) {
		t.Errorf("untraced %d, want %d", got, len(big)-1)
	}
	var lines [2]lineSplitter
	var got [2][]string
	for {
		c, ok := q.pop()
		if !ok {
			break
		}
		lines[dir(c.fromEditor)].feed(c, func(line []byte) {
			if len(line) > 40 {
				line = []byte("BIG\n")
			}
			got[dir(c.fromEditor)] = append(got[dir(c.fromEditor)], string(line))
		})
	}
	if want := []string{`{"a":1}` + "\n", "BIG\n", "next\n"}; !equal(got[0], want) {
		t.Errorf("agent's lines %q, want %q", got[0], want)
	}
	if want := []string{"editor\n"}; !equal(got[1], want) {
		t.Errorf("editor's lines %q, want %q", got[1], want)
	}
}

func equal(a, b []string) bool { return slices.Equal(a, b) }

// BenchmarkTapQueuePush is the copy on the pumps' path: a message of
// the size ACP's updates have, the reader draining beside it.
func BenchmarkTapQueuePush(b *testing.B) {
	q := newTapQueue()
	msg := append(bytes.Repeat([]byte("x"), 300), '\n')
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, ok := q.pop(); ok; _, ok = q.pop() {
		}
	}()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q.push(i%2 == 0, msg, time.Now())
		q.kick()
	}
	q.close()
	<-done
}
