package parse

import "time"

// deltaFolder folds the runs of thinking deltas of a block's lines, one
// line at a time (WithFoldedDeltas).
type deltaFolder struct {
	maxGap time.Duration
	open   bool    // last is a delta the next may fold into
	last   Header  // the last delta's, emitted or folded
	run    *Deltas // the deltas folded since the last emitted, nil for none
}

// reset forgets the run: the next line does not follow the last. A nil
// folder folds nothing.
func (f *deltaFolder) reset() {
	if f != nil {
		f.open, f.run = false, nil
	}
}

// fold folds a delta with header h into the run, appending the run's
// event to evs when it starts one; ok is false when h does not continue
// the run, and the delta is to be decoded as an event of its own.
func (f *deltaFolder) fold(h Header, evs []Event) (_ []Event, ok bool) {
	if !f.open || h.SessionID != f.last.SessionID || h.ModelCallID != f.last.ModelCallID || h.Time.IsZero() ||
		h.Time.Before(f.last.Time) || f.maxGap > 0 && h.Time.Sub(f.last.Time) > f.maxGap {
		return evs, false
	}
	if f.run == nil {
		f.run = &Deltas{First: h.Time}
		evs = append(evs, f.run)
	}
	f.run.Header, f.run.Before = h, f.last.Time
	f.run.Count++
	f.last = h
	return evs, true
}

// saw notes an event emitted: a delta with a time may head a run.
func (f *deltaFolder) saw(ev Event) {
	f.run = nil
	th, ok := ev.(*Thinking)
	f.open = ok && !th.Done && !th.Time.IsZero()
	if f.open {
		f.last = th.Header
	}
}

// appendEvent appends the event of line, or folds it into the run of
// deltas under way (when folding: f not nil, and no content kept). A
// delta in deltaLine's layout is read once, its event made only when it
// is not folded.
func (l *lineDecoder) appendEvent(evs []Event, f *deltaFolder, line []byte, num int) []Event {
	if f == nil {
		return append(evs, l.decode(line, num))
	}
	var ev Event
	if h, _, ok := l.deltaHeader(line, num); ok {
		if evs, ok := f.fold(h, evs); ok {
			return evs
		}
		ev = l.newThinking(h)
	} else {
		ev = l.decode(line, num)
		if th, ok := ev.(*Thinking); ok && !th.Done {
			// A delta in another layout: folded all the same, its event made.
			if evs, ok := f.fold(th.Header, evs); ok {
				return evs
			}
		}
	}
	f.saw(ev)
	return append(evs, ev)
}
