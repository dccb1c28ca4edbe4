package parse

import (
	"bytes"
	"fmt"
	"io"
)

// lines reads a stream a block of whole lines at a time, for DecodeAhead:
// read straight into the block's buffer and cut after its last line
// feed, not copied line by line out of a LineReader's. It keeps what
// LineReader gives: lines numbered alike, and a line longer than a block
// read on its own, kept up to max bytes (with its line ending, as
// LineReader counts), beyond that counted.
type lines struct {
	r       io.Reader
	max     int
	longer  func(size int) // see WithLongLines
	longest int
	num     int    // lines read so far
	carry   []byte // the start of a line the last read cut short
	ended   bool   // r said io.EOF
	chunk   []byte // where a long line is read, a chunk at a time
	long    []byte // where a long line is kept, reused from line to line
}

// done says everything read has been handed out.
func (ls *lines) done() bool { return ls.ended && len(ls.carry) == 0 }

// next reads into b.buf, empty, what the last read cut short and more of
// the stream, and cuts it after its last line feed: the rest is carried
// to the next block. whole is false when b.buf has no line feed, only the
// start of a line longer than a block (see longLine). err is the
// reader's, but io.EOF, with the line it cut short: the lines before it
// are b's.
func (ls *lines) next(b *block) (whole bool, err error) {
	b.buf = append(b.buf[:0], ls.carry...)
	ls.carry = ls.carry[:0]
	b.first = ls.num + 1
	if !ls.ended {
		err = ls.fill(&b.buf)
	}
	if err == io.EOF {
		ls.ended, err = true, nil
	}
	cut := bytes.LastIndexByte(b.buf, '\n')
	switch {
	case err != nil:
		b.buf = b.buf[:cut+1] // a line cut short by the error is lost, as LineReader loses it
	case ls.ended:
		// The stream's lines, the last perhaps without its line feed.
		if n := len(b.buf); n > 0 && b.buf[n-1] != '\n' {
			ls.num++
		}
	case cut < 0:
		return false, nil
	default:
		ls.carry = append(ls.carry, b.buf[cut+1:]...)
		b.buf = b.buf[:cut+1]
	}
	ls.num += bytes.Count(b.buf, []byte{'\n'})
	if err != nil {
		err = fmt.Errorf("read line %d: %w", ls.num+1, err)
	}
	return true, err
}

// fill reads into buf until it holds a block's bytes, or the stream
// ends, or a short read (a pipe with nothing more waiting) brought a line
// feed: a stream replayed as it is written is not held back a block.
func (ls *lines) fill(buf *[]byte) error {
	for empty := 0; len(*buf) < blockBytes; {
		b := *buf
		room := b[len(b):cap(b)]
		n, err := ls.r.Read(room)
		*buf = b[:len(b)+n]
		if err != nil {
			return err
		}
		if n == 0 {
			if empty++; empty == 100 {
				return io.ErrNoProgress
			}
			continue
		}
		if n < len(room) && bytes.IndexByte(room[:n], '\n') >= 0 {
			return nil
		}
	}
	return nil
}

// longLine reads the rest of the line b.buf holds the start of, or, once
// longer than max, only counts it: then b is that line too long to keep
// (b.tooLong). The line is read into a buffer kept for the next: up to
// maxScratchLine, b gets a copy of its own, to be decoded beside; past
// it, b.buf is that buffer, valid until the next call (the line is
// decoded before: tool results of 40 MiB each are not each a buffer
// grown anew).
func (ls *lines) longLine(b *block) error {
	line := append(ls.long[:0], b.buf...)
	b.buf = nil
	defer func() {
		if line != nil {
			ls.long = line[:0]
		}
	}()
	size := len(line)
	tooLong := size > ls.max
	if ls.chunk == nil {
		ls.chunk = make([]byte, 64<<10)
	}
	found := false
	var err error
	for empty := 0; !found && !ls.ended; {
		ls.heard(size)
		var n int
		n, err = ls.r.Read(ls.chunk)
		part := ls.chunk[:n]
		if i := bytes.IndexByte(part, '\n'); i >= 0 {
			ls.carry = append(ls.carry[:0], part[i+1:]...)
			part, found = part[:i+1], true
		}
		size += len(part)
		if !tooLong && size > ls.max {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, part...)
		}
		switch {
		case err == io.EOF:
			ls.ended, err = true, nil
		case err != nil:
			if !found {
				return fmt.Errorf("read line %d: %w", ls.num+1, err)
			}
			// The line is whole: the error is the next read's to say.
			ls.carry, err = nil, nil
		case n == 0:
			if empty++; empty == 100 {
				return fmt.Errorf("read line %d: %w", ls.num+1, io.ErrNoProgress)
			}
		}
	}
	ls.num++
	if tooLong {
		if found {
			size-- // the line feed, as LineReader counts
		}
		b.tooLong = size
		return nil
	}
	b.buf = line
	if len(line) <= maxScratchLine {
		b.buf = append(make([]byte, 0, len(line)), line...)
	}
	return nil
}

// heard tells longer of a line longer than every one before it.
func (ls *lines) heard(size int) {
	if ls.longer != nil && size > ls.longest {
		ls.longest = size
		ls.longer(size)
	}
}
