package synth

import (
	"fmt"
	"io"
	"regexp"
)

// uuid is how session ids look, and the start of request and model call ids.
var uuid = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// Dense writes at least size bytes to w: the recordings over again, each
// copy with fresh ids (every UUID in it, so its session, request and model
// call ids, made new), the way a CI fleet's archive of short runs looks:
// about 500 spans per MB where Mix has about 100. recorded is what one
// pass of the recordings holds, counted by the caller.
func Dense(w io.Writer, size int64, recordings [][]byte, recorded Counts) (Counts, error) {
	var total Counts
	copies := make([]template, len(recordings))
	for i, r := range recordings {
		copies[i] = newTemplate(r)
	}
	buf := make([]byte, 0, 64<<10)
	for n := 0; total.Bytes < size; n++ {
		for i, c := range copies {
			buf = c.render(buf[:0], uint64(n)<<8|uint64(i))
			if _, err := w.Write(buf); err != nil {
				return total, fmt.Errorf("write recording: %w", err)
			}
			// Counted as written, not from recorded: a caller that
			// passes no byte count must not make this loop for ever.
			total.Bytes += int64(len(buf))
		}
		total.Lines += recorded.Lines
		total.Sessions += recorded.Sessions
		total.ToolCalls += recorded.ToolCalls
	}
	return total, nil
}

// template is a recording cut before the last 12 digits of each UUID in it.
type template struct {
	parts [][]byte // text, then after each UUID's 24th character
	ids   []int    // which of the recording's distinct UUIDs each cut is
}

func newTemplate(r []byte) template {
	var t template
	seen := map[string]int{}
	at := 0
	for _, m := range uuid.FindAllIndex(r, -1) {
		id, ok := seen[string(r[m[0]:m[1]])]
		if !ok {
			id = len(seen)
			seen[string(r[m[0]:m[1]])] = id
		}
		t.parts = append(t.parts, r[at:m[0]+24])
		t.ids = append(t.ids, id)
		at = m[1]
	}
	t.parts = append(t.parts, r[at:])
	return t
}

// render appends the recording with the UUIDs of copy n: the same UUID
// stays the same within it, and differs from every other copy's.
func (t template) render(b []byte, n uint64) []byte {
	for i, id := range t.ids {
		b = append(b, t.parts[i]...)
		b = fmt.Appendf(b, "%06x%06x", n&0xffffff, id&0xffffff)
	}
	return append(b, t.parts[len(t.parts)-1]...)
}
