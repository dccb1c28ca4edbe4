package parse

import (
	"context"
	"io"
)

// Batch is a run of events decoded ahead of their reader.
type Batch struct {
	Events []Event
	Err    error // the reader's error after the last event; never io.EOF
}

// batchSize is how many events a Batch holds: enough that handing one over
// costs little per event, few enough that the batches in flight weigh
// little.
const batchSize = 256

// batchesAhead is how many batches may wait to be read. Decoding and
// recording each go fast and slow by turns (a run of thinking deltas is
// quick to record, a run of tool calls slow), so a short queue leaves each
// waiting on the other: with two, replaying the thinking-heavy 213 MB mix
// the recorder waited 320 ms for batches and the decoder 340 ms for room,
// in a 0.9 s run; with eight, the recorder waits 255 ms.
const batchesAhead = 8

// DecodeAhead decodes r on a goroutine of its own and hands the events over
// in batches, so that decoding and whatever the caller does with the events
// run on two cores. At most batchesAhead batches wait to be read. The
// channel is closed after the last batch; cancelling ctx stops the
// decoding early.
func DecodeAhead(ctx context.Context, r io.Reader, opts ...Option) <-chan Batch {
	out := make(chan Batch, batchesAhead)
	go func() {
		defer close(out)
		dec := NewDecoder(r, opts...)
		b := Batch{Events: make([]Event, 0, batchSize)}
		for {
			ev, err := dec.Next()
			if err == nil {
				b.Events = append(b.Events, ev)
				if len(b.Events) < batchSize {
					continue
				}
			} else if err != io.EOF {
				b.Err = err
			}
			select {
			case out <- b:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
			b = Batch{Events: make([]Event, 0, batchSize)}
		}
	}()
	return out
}
