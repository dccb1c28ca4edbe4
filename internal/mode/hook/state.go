package hook

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/filelock"
	"github.com/cursor-otel/cursor-otel/parse"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

// The state directory holds, under state.lock: conversations/ (a JSON
// state per conversation), open/ (a mark per conversation with a turn
// under way), turns/ (the spans of each turn under way, held until the
// turn closes: a turn is exported whole) and spool.ndjson (span records
// of closed turns not yet exported, one per line). The flusher holds
// flush.lock while it exports.
const (
	idleAfter = 30 * time.Minute    // a turn silent this long is closed, incomplete
	forgetAt  = 30 * 24 * time.Hour // a conversation silent this long is forgotten
	gcEvery   = time.Hour           // how often the hook looks for such
	maxSpool  = 32 << 20            // the most the records' file holds; more is dropped
)

// record steps a conversation's state by one event; the spans of the
// turn under way are held, and a turn that closes goes whole to the
// spool. It says whether it spooled any.
func record(dir string, h *spanmap.Hooks, ev parse.HookEvent, now time.Time) (bool, error) {
	for _, sub := range []string{"conversations", "open", "turns"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return false, err
		}
	}
	unlock, err := filelock.Lock(filepath.Join(dir, "state.lock"), true)
	if err != nil {
		return false, err
	}
	defer unlock()
	name := conversationName(ev.ConversationID)
	var st spanmap.HookState
	if b, err := os.ReadFile(conversationFile(dir, name)); err == nil {
		_ = json.Unmarshal(b, &st) // a damaged state starts anew
	}
	records := h.Step(&st, ev, now)
	ready, err := save(dir, name, h, &st, records)
	if err != nil {
		return false, err
	}
	ready = append(ready, closeIdle(dir, h, now, name)...)
	forget(dir, now)
	if len(ready) == 0 {
		return false, nil
	}
	return true, appendSpool(dir, ready)
}

// save writes a conversation's state and sorts the spans it finished:
// those of the turn under way are held beside it, the rest are ready,
// with what was held of the turns they close.
func save(dir, name string, h *spanmap.Hooks, st *spanmap.HookState, records []spanmap.SpanRecord) ([]spanmap.SpanRecord, error) {
	path := conversationFile(dir, name)
	if err := writeFile(path, st); err != nil {
		return nil, err
	}
	// Its time is its last event's: closeIdle reads no state written
	// since idleAfter.
	_ = os.Chtimes(path, st.Last, st.Last)
	open, isOpen := h.OpenTurn(st)
	mark := filepath.Join(dir, "open", name)
	if isOpen {
		if _, err := os.Stat(mark); err != nil {
			_ = os.WriteFile(mark, nil, 0o600)
		}
	} else {
		_ = os.Remove(mark)
	}
	var held, ready []spanmap.SpanRecord
	for _, r := range records {
		if isOpen && r.TraceID == open {
			held = append(held, r)
		} else {
			ready = append(ready, r)
		}
	}
	if len(held) > 0 {
		if err := appendRecords(heldFile(dir, open), held, maxSpool); err != nil {
			return nil, err
		}
	}
	return release(dir, ready), nil
}

// release is ready with, before it, what was held of each turn whose
// spans it has: a turn closed goes whole.
func release(dir string, ready []spanmap.SpanRecord) []spanmap.SpanRecord {
	var out []spanmap.SpanRecord
	seen := map[trace.TraceID]bool{}
	for _, r := range ready {
		if seen[r.TraceID] {
			continue
		}
		seen[r.TraceID] = true
		path := heldFile(dir, r.TraceID)
		if data, err := os.ReadFile(path); err == nil {
			out = append(out, readRecords(data)...)
			_ = os.Remove(path)
		}
	}
	return append(out, ready...)
}

// closeIdle closes the turns under way that nothing has followed for
// idleAfter (an editor closed, a crash, a stop never sent), in the
// conversations other than except: whole, saying they did not complete.
// Only conversations with a turn under way are looked at, and only
// those whose state has not been written for that long are read.
func closeIdle(dir string, h *spanmap.Hooks, now time.Time, except string) []spanmap.SpanRecord {
	marks, _ := os.ReadDir(filepath.Join(dir, "open"))
	var out []spanmap.SpanRecord
	for _, m := range marks {
		name := m.Name()
		path := conversationFile(dir, name)
		fi, err := os.Stat(path)
		if name == except || err == nil && now.Sub(fi.ModTime()) < idleAfter {
			continue
		}
		var st spanmap.HookState
		b, err := os.ReadFile(path)
		if err != nil || json.Unmarshal(b, &st) != nil {
			_ = os.Remove(filepath.Join(dir, "open", name)) // nothing left to close
			continue
		}
		if st.Turn == nil || now.Sub(st.Turn.Last) < idleAfter {
			continue
		}
		if ready, err := save(dir, name, h, &st, h.CloseIdle(&st)); err == nil {
			out = append(out, ready...)
		}
	}
	return out
}

// forget removes, at most every gcEvery, the conversations silent for
// forgetAt (a conversation's state is kept after its turns for the next
// turn to link to, but not for ever), and spans held for a turn whose
// conversation is gone.
func forget(dir string, now time.Time) {
	marker := filepath.Join(dir, "gc")
	if fi, err := os.Stat(marker); err == nil && now.Sub(fi.ModTime()) < gcEvery {
		return
	}
	_ = os.WriteFile(marker, nil, 0o600)
	_ = os.Chtimes(marker, now, now)
	for _, sub := range []string{"conversations", "turns"} {
		entries, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, e := range entries {
			if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) >= forgetAt {
				_ = os.Remove(filepath.Join(dir, sub, e.Name()))
			}
		}
	}
}

// conversationName is a conversation's name in the state directory.
func conversationName(conversation string) string {
	sum := sha256.Sum256([]byte(conversation))
	return hex.EncodeToString(sum[:12])
}

func conversationFile(dir, name string) string {
	return filepath.Join(dir, "conversations", name+".json")
}

// heldFile holds the finished spans of a turn under way.
func heldFile(dir string, turn trace.TraceID) string {
	return filepath.Join(dir, "turns", turn.String()+".ndjson")
}

// writeFile writes v as JSON, whole or not at all, readable by the user
// alone (it may hold prompts, with content capture).
func writeFile(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// appendSpool adds records to this process's own file (Run files them
// under their destination), dropping them when the records are too many.
func appendSpool(dir string, records []spanmap.SpanRecord) error {
	b, err := encodeRecords(records)
	if err != nil {
		return err
	}
	var held int64
	for _, files := range keptRecords(dir, time.Now()) {
		for _, f := range files {
			if fi, err := os.Stat(f); err == nil {
				held += fi.Size()
			}
		}
	}
	if fi, err := os.Stat(ownRecords(dir)); err == nil {
		held += fi.Size()
	}
	if held+int64(len(b)) > maxSpool {
		return fmt.Errorf("spool full: %d records dropped", len(records))
	}
	return appendFile(ownRecords(dir), b)
}

// appendRecords adds records to the file at path, dropping them when the
// file would pass limit.
func appendRecords(path string, records []spanmap.SpanRecord, limit int64) error {
	b, err := encodeRecords(records)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil && fi.Size()+int64(len(b)) > limit {
		return fmt.Errorf("%s full: %d records dropped", filepath.Base(path), len(records))
	}
	return appendFile(path, b)
}

// encodeRecords is records as JSON, one a line.
func encodeRecords(records []spanmap.SpanRecord) ([]byte, error) {
	var buf bytes.Buffer
	for _, r := range records {
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// readRecords reads records one a line; a damaged line is left out.
func readRecords(data []byte) []spanmap.SpanRecord {
	var out []spanmap.SpanRecord
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxSpool)
	for sc.Scan() {
		var r spanmap.SpanRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// takeSpool takes the records kept for one of ids (all of them, to
// redirect them), leaving the others.
func takeSpool(dir string, ids map[string]bool, redirect bool) ([]spanmap.SpanRecord, error) {
	unlock, err := filelock.Lock(filepath.Join(dir, "state.lock"), true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var out []spanmap.SpanRecord
	for id, files := range keptRecords(dir, time.Now()) {
		if !ids[id] && !redirect {
			continue
		}
		for _, path := range files {
			data, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return out, err
			}
			if err := os.Remove(path); err != nil {
				return out, err
			}
			out = append(out, readRecords(data)...)
		}
	}
	return out, nil
}
