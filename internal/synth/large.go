package synth

import (
	"bytes"
	"fmt"
	"io"
)

// LargeLines writes sessions until size bytes are written, each a small
// session whose last tool, a shell reading a build log, returns lineSize
// bytes of output on one line: the stream where memory is sized by its
// lines rather than its open spans.
func LargeLines(w io.Writer, size int64, lineSize int) (Counts, error) {
	session := Stream(1)
	lines := bytes.SplitAfter(session, []byte("\n"))
	lines = lines[:len(lines)-1] // after the last "\n"
	head := bytes.Join(lines[:len(lines)-1], nil)
	result := lines[len(lines)-1]
	started := []byte(`{"type":"tool_call","subtype":"started","call_id":"big","tool_call":{"shellToolCall":{"args":{"command":"cat build.log"}}}}` + "\n")
	huge := HugeLine(lineSize)
	const sid = "5b4450f4-3204-42b1-b082-844f859df8c3"
	var c Counts
	for n := 0; c.Bytes < size; n++ {
		id := []byte(fmt.Sprintf("5b4450f4-3204-42b1-b082-%012x", n))
		for _, b := range [][]byte{bytes.ReplaceAll(head, []byte(sid), id), started, huge, bytes.ReplaceAll(result, []byte(sid), id)} {
			m, err := w.Write(b)
			c.Bytes += int64(m)
			if err != nil {
				return c, err
			}
			c.Lines += bytes.Count(b, []byte("\n"))
		}
		c.Sessions++
		c.ToolCalls += bytes.Count(head, []byte(`"subtype":"started"`)) + 1
	}
	return c, nil
}
