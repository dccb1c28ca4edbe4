package parse

import (
	"bytes"
	"fmt"
	"io"
	"time"
)

// Decoder reads a stream of events, one per line. Blank lines are skipped
// (unless WithBlankLines); every other line becomes exactly one event.
type Decoder struct {
	lines  *LineReader
	raw    []byte
	ending string
	blank  bool
	line   lineDecoder
	// fold and foldGap: see WithFoldedDeltas.
	fold    bool
	foldGap time.Duration
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

// WithLongLines calls longer as a line is read, each time it has grown
// longer than every line before it (only past the read buffer: 64 KiB,
// or with DecodeAhead a block's 256 KiB), so that the caller can make
// room for a line of many megabytes before it is whole. It runs on the
// reading goroutine.
func WithLongLines(longer func(size int)) Option {
	return func(d *Decoder) { d.lines.longer = longer }
}

// WithFoldedDeltas has DecodeAhead fold each run of thinking deltas of
// one session and model call into the first, as it is, and a *Deltas
// after it standing for the rest: a run's deltas have times, each at most
// maxGap after the one before (any gap, when maxGap is 0). A replay's
// thinking is then recorded as it would be delta by delta (a phase's
// start, end and count; no stall within it when maxGap is the stall
// threshold), without an event for each. It holds only without content:
// deltas with text are not folded. Decoder.Next, which gives each line's
// event, folds nothing.
func WithFoldedDeltas(maxGap time.Duration) Option {
	return func(d *Decoder) { d.fold, d.foldGap = true, maxGap }
}

// WithBlankLines returns a line with nothing on it as a *Blank event, for
// a reader that gives the stream's lines back as they were (rendering
// what is not an event).
func WithBlankLines() Option {
	return func(d *Decoder) { d.blank = true }
}

// Next returns the next event, or io.EOF at the end of the stream. Any
// other error is the underlying reader's.
func (d *Decoder) Next() (Event, error) {
	for {
		line, err := d.lines.Next()
		if err != nil {
			return nil, err
		}
		d.ending = line.Ending
		if line.TooLong {
			d.raw = nil
			return tooLongLine(line.Num, line.Size), nil
		}
		if isBlank(line.Bytes) {
			if d.blank {
				d.raw = line.Bytes
				return &Blank{Header: Header{Line: line.Num}}, nil
			}
			continue
		}
		d.raw = line.Bytes
		return d.line.decode(line.Bytes, line.Num), nil
	}
}

// Raw returns the line the last event was decoded from, without its line
// ending. It is valid until the next call to Next.
func (d *Decoder) Raw() []byte { return d.raw }

// Ending is the line ending of the line the last event was decoded from:
// "\n", "\r\n", or "" for a last line without one.
func (d *Decoder) Ending() string { return d.ending }

// tooLongLine is the event of a line too long to keep.
func tooLongLine(num, size int) *Invalid {
	return &Invalid{Header: Header{Line: num}, Size: size, Err: fmt.Errorf("%w: %d bytes", ErrLineTooLong, size)}
}

// isBlank says whether a line has nothing on it but white space.
func isBlank(line []byte) bool {
	if len(line) > 0 && line[0] == '{' {
		return false // an event's line, nearly always
	}
	return len(bytes.TrimSpace(line)) == 0
}
