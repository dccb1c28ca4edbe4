package summary

import (
	"bytes"
	"encoding/json"
)

// Spool is what became of a session the collector did not take, in
// the session's JSON report: kept on disk for a later delivery, or
// dropped (and why); and, on the run's last session, how many older
// sessions the run dropped to keep the spool within its bound.
type Spool struct {
	Kept                 bool   `json:"kept,omitempty"`
	Dropped              string `json:"dropped,omitempty"` // too_large
	OlderSessionsDropped int    `json:"older_sessions_dropped,omitempty"`
}

// held is a JSON report waiting for Finish, to say what became of its
// session.
type held struct {
	traceID string
	line    []byte
}

// HoldJSON makes the JSON reports wait for Finish: what became of each
// session (exported, kept, dropped) is known only once the run flushed.
// A caller that holds them calls Finish on every way out.
func (f *Files) HoldJSON() {
	f.mu.Lock()
	f.hold = true
	f.mu.Unlock()
}

// Spooled says what became of the sessions the collector did not take
// (by trace ID) and how many older sessions were dropped, for Finish to
// add to the held JSON reports.
func (f *Files) Spooled(fates map[string]Spool, olderDropped int) {
	f.mu.Lock()
	f.fates, f.olderDropped = fates, olderDropped
	f.mu.Unlock()
}

// writeHeld writes the JSON reports held, each with its session's fate.
// f.mu is held.
func (f *Files) writeHeld() {
	for i, h := range f.held {
		s := f.fates[h.traceID]
		if i == len(f.held)-1 {
			s.OlderSessionsDropped = f.olderDropped
		}
		line := h.line
		if s != (Spool{}) {
			line = withSpool(line, s)
		}
		if err := appendFile(f.JSON, line); err != nil && f.err == nil {
			f.err = errWrite(err)
		}
	}
	f.held = nil
}

// withSpool adds "spool" to a JSON report's line.
func withSpool(line []byte, s Spool) []byte {
	b, err := json.Marshal(s)
	end := bytes.LastIndexByte(line, '}')
	if err != nil || end < 0 {
		return line
	}
	out := append([]byte{}, line[:end]...)
	out = append(out, `,"spool":`...)
	out = append(out, b...)
	return append(out, line[end:]...)
}
