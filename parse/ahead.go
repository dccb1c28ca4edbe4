package parse

import (
	"context"
	"io"
	"iter"
	"runtime"
	"time"
)

// Batch is a run of events decoded ahead of their reader.
type Batch struct {
	Events []Event
	Err    error // the reader's error after the last event; never io.EOF
}

// batchSize is the most events a Batch holds: enough that handing one over
// costs little per event, few enough that the batches in flight weigh
// little.
const batchSize = 256

// blockBytes is where a batch's lines are cut short of batchSize: a block
// of tool results is a few hundred KiB, not a few MB.
const blockBytes = 256 << 10

// blockCap is a block's buffer: its lines, and one more of 64 KiB, the
// read buffer's size, without growing.
const blockCap = blockBytes + 64<<10

// batchesAhead is how many batches may be read, decoded or waiting ahead
// of their reader. Decoding and recording each go fast and slow by turns
// (a run of thinking deltas is quick to record, a run of tool calls
// slow), so a short queue leaves each waiting on the other.
const batchesAhead = 8

// maxDecoders is the most goroutines that decode at once.
const maxDecoders = 4

// DecodeAhead reads r's lines on a goroutine of its own and decodes them,
// a batch at a time, on as many goroutines as there are cores (up to
// maxDecoders), so that reading, decoding and whatever the caller does
// with the events share the cores. The batches come in the stream's
// order; at most batchesAhead are ahead of the caller. A line longer than
// maxScratchLine is decoded where it is read, uncopied, one at a time.
// Breaking out of the loop, or cancelling ctx, stops the reading.
func DecodeAhead(ctx context.Context, r io.Reader, opts ...Option) iter.Seq[Batch] {
	return func(yield func(Batch) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		for b := range startBlocks(ctx, r, opts) {
			<-b.done
			if !yield(b.batch) {
				return
			}
		}
	}
}

// block is a run of lines, copied out of the reader's buffer, and, once
// done is closed, the batch decoded from them.
type block struct {
	buf   []byte
	lines []blockLine
	batch Batch
	done  chan struct{}
}

// blockLine is a line of a block: buf[off:end], or a line too long to keep.
type blockLine struct {
	off, end  int
	num, size int
	tooLong   bool
}

// aheadDecoder is what reads a stream into blocks and decodes them.
type aheadDecoder struct {
	blank bool // see WithBlankLines
	fold  bool // see WithFoldedDeltas
	gap   time.Duration
	proto lineDecoder // options for each decoding goroutine's own
	free  chan []byte // blocks' buffers to reuse
	jobs  chan *block // blocks to decode
	order chan *block // every block, in the stream's order
	lines *LineReader // the stream
	own   lineDecoder // the reading goroutine's, for the longest lines
	next  *block      // the block being filled
}

// startBlocks starts reading r and decoding its lines, and returns the
// blocks in order. Every block sent is decoded: its done is closed.
func startBlocks(ctx context.Context, r io.Reader, opts []Option) <-chan *block {
	var d Decoder
	d.lines = NewLineReader(r, DefaultMaxLine)
	for _, o := range opts {
		o(&d)
	}
	workers := min(max(runtime.GOMAXPROCS(0), 1), maxDecoders)
	a := &aheadDecoder{
		blank: d.blank,
		fold:  d.fold,
		gap:   d.foldGap,
		proto: lineDecoder{noContent: d.line.noContent},
		free:  make(chan []byte, batchesAhead+workers+1),
		jobs:  make(chan *block, workers),
		order: make(chan *block, batchesAhead),
		lines: d.lines,
		own:   lineDecoder{noContent: d.line.noContent},
	}
	for range workers {
		go a.decodeBlocks()
	}
	go a.read(ctx)
	return a.order
}

// read splits the stream into blocks until its end, an error or ctx's
// cancelling.
func (a *aheadDecoder) read(ctx context.Context) {
	defer close(a.order)
	defer close(a.jobs)
	a.next = a.newBlock()
	for {
		line, err := a.lines.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			a.send(ctx, err, true)
			return
		}
		switch {
		case line.TooLong:
			a.next.lines = append(a.next.lines, blockLine{num: line.Num, size: line.Size, tooLong: true})
		case isBlank(line.Bytes):
			if !a.blank {
				continue
			}
			a.next.lines = append(a.next.lines, blockLine{num: line.Num})
		case len(line.Bytes) > maxScratchLine:
			// Decoded here, in the reader's buffer: a tool result of many
			// MB is neither copied nor held twice.
			if len(a.next.lines) > 0 && !a.send(ctx, nil, false) {
				return
			}
			ev := a.own.decode(line.Bytes, line.Num)
			a.next.batch.Events = append(a.next.batch.Events, ev)
			close(a.next.done)
			if !a.sendDecoded(ctx) {
				return
			}
			continue
		default:
			off := len(a.next.buf)
			a.next.buf = append(a.next.buf, line.Bytes...)
			a.next.lines = append(a.next.lines, blockLine{off: off, end: len(a.next.buf), num: line.Num, size: line.Size})
		}
		if len(a.next.lines) == batchSize || len(a.next.buf) >= blockBytes {
			if !a.send(ctx, nil, false) {
				return
			}
		}
	}
}

// newBlock is an empty block, its buffer reused when one is free.
func (a *aheadDecoder) newBlock() *block {
	b := &block{done: make(chan struct{}), lines: make([]blockLine, 0, batchSize)}
	select {
	case b.buf = <-a.free:
	default:
		b.buf = make([]byte, 0, blockCap)
	}
	return b
}

// send hands the block being filled over to be decoded, with err after
// its lines, and starts the next one unless last. It is false when ctx
// was cancelled first.
func (a *aheadDecoder) send(ctx context.Context, err error, last bool) bool {
	b := a.next
	b.batch.Err = err
	if len(b.lines) == 0 {
		if err == nil {
			return true // nothing to hand over
		}
		close(b.done)
		return a.sendDecoded(ctx)
	}
	select {
	case a.order <- b:
	case <-ctx.Done():
		return false
	}
	a.jobs <- b // decoders take every block in order, whatever ctx says
	if !last {
		a.next = a.newBlock()
	}
	return true
}

// sendDecoded hands over the block being filled, already decoded, and
// starts the next one with its buffers.
func (a *aheadDecoder) sendDecoded(ctx context.Context) bool {
	b := a.next
	a.next = &block{done: make(chan struct{}), lines: b.lines[:0], buf: b.buf}
	b.lines, b.buf = nil, nil
	select {
	case a.order <- b:
		return true
	case <-ctx.Done():
		return false
	}
}

// decodeBlocks decodes blocks until there are no more.
func (a *aheadDecoder) decodeBlocks() {
	l := a.proto
	var folder *deltaFolder
	if a.fold {
		folder = &deltaFolder{maxGap: a.gap}
	}
	for b := range a.jobs {
		evs := make([]Event, 0, len(b.lines))
		folder.reset() // a block does not follow the last one decoded here
		for _, bl := range b.lines {
			switch {
			case bl.tooLong:
				evs = append(evs, tooLongLine(bl.num, bl.size))
				folder.reset() // a run of deltas ends at any other line
			case bl.end == bl.off:
				evs = append(evs, &Blank{Header: Header{Line: bl.num}})
				folder.reset()
			default:
				evs = l.appendEvent(evs, folder, b.buf[bl.off:bl.end], bl.num)
			}
		}
		b.batch.Events = evs
		if cap(b.buf) == blockCap { // not one grown for a long line
			select {
			case a.free <- b.buf[:0]:
			default:
			}
		}
		b.buf, b.lines = nil, nil
		close(b.done)
	}
}
