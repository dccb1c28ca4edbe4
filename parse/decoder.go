package parse

import (
	"bytes"
	"fmt"
	"io"
)

// Decoder reads a stream of events, one per line. Blank lines are skipped;
// every other line becomes exactly one event.
type Decoder struct {
	lines *LineReader
	raw   []byte
	line  lineDecoder
}

// NewDecoder reads events from r.
func NewDecoder(r io.Reader, opts ...Option) *Decoder {
	d := &Decoder{lines: NewLineReader(r, DefaultMaxLine)}
	for _, o := range opts {
		o(d)
	}
	return d
}

// Option changes what a Decoder keeps.
type Option func(*Decoder)

// WithoutContent leaves out what only content capture records: the text
// of prompts, thinking and assistant messages, and tool arguments and
// results as JSON (ToolCall.Args, ToolResult.Raw). Facts, error messages
// and the result event's text are kept. Copying a tool's output costs more
// than reading what the trace needs from it.
func WithoutContent() Option {
	return func(d *Decoder) { d.line.noContent = true }
}

// Next returns the next event, or io.EOF at the end of the stream. Any
// other error is the underlying reader's.
func (d *Decoder) Next() (Event, error) {
	for {
		line, err := d.lines.Next()
		if err != nil {
			return nil, err
		}
		if line.TooLong {
			d.raw = nil
			return &Invalid{Header: Header{Line: line.Num}, Size: line.Size,
				Err: fmt.Errorf("%w: %d bytes", ErrLineTooLong, line.Size)}, nil
		}
		if len(bytes.TrimSpace(line.Bytes)) == 0 {
			continue
		}
		d.raw = line.Bytes
		return d.line.decode(line.Bytes, line.Num), nil
	}
}

// Raw returns the line the last event was decoded from, without its line
// ending. It is valid until the next call to Next.
func (d *Decoder) Raw() []byte { return d.raw }
