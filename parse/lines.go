package parse

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLine is the longest line LineReader keeps whole. A tool result
// of several megabytes is normal; a line beyond this is counted, not kept.
const DefaultMaxLine = 64 << 20

// ErrLineTooLong says a line exceeded the reader's limit and was skipped.
var ErrLineTooLong = errors.New("line too long")

// Line is one line of input without its line ending.
type Line struct {
	Num     int    // 1-based
	Bytes   []byte // valid until the next call to Next; nil when TooLong
	Size    int    // bytes in the line, without its line ending
	Ending  string // "\n", "\r\n", or "" for a last line without one
	TooLong bool
}

// LineReader splits a stream into lines of any length. It accepts "\n" and
// "\r\n" endings and a last line without one. Unlike bufio.Scanner it has no
// 64 KiB limit: lines up to max bytes are returned whole, longer ones are
// skipped in constant memory and reported with TooLong.
type LineReader struct {
	r   *bufio.Reader
	buf []byte
	num int
	max int
	// longer, when set, hears of every line longer than those before it
	// while it is read, so that room can be made before it is whole.
	longer  func(size int)
	longest int
}

// NewLineReader reads lines from r, keeping lines up to max bytes
// (DefaultMaxLine when max <= 0).
func NewLineReader(r io.Reader, max int) *LineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &LineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next line, or io.EOF after the last one.
func (lr *LineReader) Next() (Line, error) {
	chunk, err := lr.r.ReadSlice('\n')
	if err == nil && len(chunk) <= lr.max {
		// The common case: the whole line is in the buffer; no copy.
		lr.num++
		return lr.line(chunk), nil
	}
	if err == io.EOF && len(chunk) == 0 {
		return Line{}, io.EOF
	}
	size, tooLong := len(chunk), len(chunk) > lr.max
	lr.buf = lr.buf[:0]
	if !tooLong {
		lr.buf = append(lr.buf, chunk...)
	}
	for err == bufio.ErrBufferFull {
		if lr.longer != nil && size > lr.longest {
			lr.longest = size
			lr.longer(size)
		}
		chunk, err = lr.r.ReadSlice('\n')
		size += len(chunk)
		if !tooLong && size > lr.max {
			tooLong, lr.buf = true, lr.buf[:0]
		}
		if !tooLong {
			lr.buf = append(lr.buf, chunk...)
		}
	}
	if err != nil && err != io.EOF {
		return Line{}, fmt.Errorf("read line %d: %w", lr.num+1, err)
	}
	lr.num++
	if tooLong {
		if size > 0 && err == nil {
			size-- // the '\n'
		}
		return Line{Num: lr.num, Size: size, TooLong: true}, nil
	}
	return lr.line(lr.buf), nil
}

func (lr *LineReader) line(b []byte) Line {
	l := Line{Num: lr.num}
	if n := len(b); n > 0 && b[n-1] == '\n' {
		l.Ending, b = "\n", b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			l.Ending, b = "\r\n", b[:n-1]
		}
	}
	l.Bytes, l.Size = b, len(b)
	return l
}
