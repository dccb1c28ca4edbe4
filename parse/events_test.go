package parse

import (
	"io"
	"testing"
	"time"
)

// eachEvent calls fn with each event dec gives until the end of the
// stream, failing t on a read error.
func eachEvent(t testing.TB, dec *Decoder, fn func(Event)) {
	t.Helper()
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		fn(ev)
	}
}

// A tool call's own start and end are its time; any other event's is its
// line's timestamp.
func TestOwnTime(t *testing.T) {
	line, start, end := time.UnixMilli(3000), time.UnixMilli(1000), time.UnixMilli(2000)
	for _, tt := range []struct {
		ev   Event
		want time.Time
	}{
		{&ToolStarted{Header: Header{Time: line}, Call: ToolCall{StartedAt: start}}, start},
		{&ToolCompleted{Header: Header{Time: line}, Call: ToolCall{CompletedAt: end}}, end},
		{&ToolCompleted{Header: Header{Time: line}}, line},
		{&Assistant{Header: Header{Time: line}}, line},
		{&Init{}, time.Time{}},
	} {
		if got := OwnTime(tt.ev); !got.Equal(tt.want) {
			t.Errorf("OwnTime(%T) = %v, want %v", tt.ev, got, tt.want)
		}
	}
}
