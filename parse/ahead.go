package parse

import (
	"bytes"
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

// blockBytes is how much of the stream a block of lines holds, and its
// events a Batch: read and handed over at once, it costs little a line,
// and the blocks in flight weigh a few MB at most.
const blockBytes = 256 << 10

// blockCap is a block's buffer: its lines, and one more of 64 KiB, without
// growing.
const blockCap = blockBytes + 64<<10

// batchesAhead is how many blocks may be read, decoded or waiting ahead of
// their reader. Decoding and recording each go fast and slow by turns (a
// run of thinking deltas is quick to record, a run of tool calls slow),
// so a short queue leaves each waiting on the other.
const batchesAhead = 8

// maxDecoders is the most goroutines that decode at once.
const maxDecoders = 4

// DecodeAhead reads r on a goroutine of its own, a block of whole lines at
// a time, and decodes the blocks on as many goroutines as there are cores
// (up to maxDecoders), so that reading, decoding and whatever the caller
// does with the events share the cores. The batches come in the stream's
// order, a block's events each; at most batchesAhead are ahead of the
// caller. A line longer than maxScratchLine is decoded where it is read,
// uncopied, one at a time. Breaking out of the loop, or cancelling ctx,
// stops the reading. The events are the Decoder's, line for line, but
// for runs of thinking deltas folded (WithFoldedDeltas).
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

// block is a run of whole lines, and, once done is closed, the batch
// decoded from them.
type block struct {
	buf   []byte // lines, each but the stream's last ending in a line feed
	first int    // the number of its first line
	// tooLong, when above 0, says the block is one line of that many
	// bytes, too long to keep: buf is empty.
	tooLong int
	batch   Batch
	done    chan struct{}
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

	lines lines       // the stream, read into blocks
	own   lineDecoder // the reading goroutine's, for the longest lines
}

// startBlocks starts reading r and decoding its lines, and returns the
// blocks in order. Every block sent is decoded: its done is closed.
func startBlocks(ctx context.Context, r io.Reader, opts []Option) <-chan *block {
	d := Decoder{lines: &LineReader{max: DefaultMaxLine}} // the options' settings; nothing read through it
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
		// A line of a block is at most blockCap bytes: a limit below that
		// would have to be checked line by line.
		lines: lines{r: r, max: max(d.lines.max, blockCap), longer: d.lines.longer},
		own:   lineDecoder{noContent: d.line.noContent},
	}
	for range workers {
		go a.decodeBlocks()
	}
	go a.read(ctx)
	return a.order
}

// read cuts the stream into blocks until its end, an error or ctx's
// cancelling. A line longer than a block is a block of its own, decoded
// here when longer than maxScratchLine: a tool result of many MB is
// neither copied again nor held twice.
func (a *aheadDecoder) read(ctx context.Context) {
	defer close(a.order)
	defer close(a.jobs)
	for {
		b := &block{done: make(chan struct{})}
		select {
		case b.buf = <-a.free:
		default:
			b.buf = make([]byte, 0, blockCap)
		}
		whole, err := a.lines.next(b)
		if !whole {
			err = a.lines.longLine(b)
			if err == nil && len(b.buf) > maxScratchLine {
				b.batch.Events = []Event{a.own.decode(trimEnding(b.buf), b.first)}
				b.buf = nil
				close(b.done)
			}
		}
		b.batch.Err = err
		last := err != nil || a.lines.done()
		if len(b.buf) == 0 && b.tooLong == 0 && b.batch.Events == nil {
			if err == nil {
				return // the end: nothing after the last block
			}
			close(b.done) // only the error to hand over
		}
		select {
		case a.order <- b:
		case <-ctx.Done():
			return
		}
		select {
		case <-b.done: // decoded already
		default:
			a.jobs <- b // decoders take every block in order, whatever ctx says
		}
		if last {
			return
		}
	}
}

// decodeBlocks decodes blocks until there are no more.
func (a *aheadDecoder) decodeBlocks() {
	l := a.proto
	var folder *deltaFolder
	if a.fold && l.noContent { // a delta's text to keep is never folded
		folder = &deltaFolder{maxGap: a.gap}
	}
	for b := range a.jobs {
		folder.reset() // a block does not follow the last one decoded here
		b.batch.Events = a.decodeBlock(&l, folder, b)
		if cap(b.buf) == blockCap { // not one made for a long line
			select {
			case a.free <- b.buf[:0]:
			default:
			}
		}
		b.buf = nil
		close(b.done)
	}
}

// decodeBlock is the events of b's lines.
func (a *aheadDecoder) decodeBlock(l *lineDecoder, folder *deltaFolder, b *block) []Event {
	if b.tooLong > 0 {
		return []Event{tooLongLine(b.first, b.tooLong)}
	}
	evs := make([]Event, 0, 64)
	num, rest := b.first, b.buf
	for ; len(rest) > 0; num++ {
		raw := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			raw, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = nil // the stream's last line, without a line feed
		}
		line := trimEnding(raw)
		if isBlank(line) {
			if a.blank {
				evs = append(evs, &Blank{Header: Header{Line: num}})
				folder.reset() // a run of deltas ends at any other line
			}
			continue
		}
		evs = l.appendEvent(evs, folder, line, num)
	}
	return evs
}

// trimEnding is line without its "\n" or "\r\n", as LineReader gives it.
func trimEnding(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
	}
	return line
}
