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

	"github.com/cursor-otel/cursor-otel/internal/filelock"
	"github.com/cursor-otel/cursor-otel/parse"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

// The state directory holds, under state.lock: conversations/ (a JSON
// state per conversation under way) and spool.ndjson (span records not
// yet exported, one per line). The flusher holds flush.lock while it
// exports.
const (
	idleAfter = 12 * time.Hour // a conversation silent this long is ended
	gcEvery   = time.Hour      // how often the hook looks for such
	maxSpool  = 32 << 20       // the most the records' file holds; more is dropped
)

// record steps a conversation's state by one event, and spools the spans
// that finished; it says whether it spooled any.
func record(dir string, h *spanmap.Hooks, ev parse.HookEvent, now time.Time) (bool, error) {
	if err := os.MkdirAll(filepath.Join(dir, "conversations"), 0o700); err != nil {
		return false, err
	}
	unlock, err := filelock.Lock(filepath.Join(dir, "state.lock"), true)
	if err != nil {
		return false, err
	}
	defer unlock()
	path := conversationFile(dir, ev.ConversationID)
	var st spanmap.HookState
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &st) // a damaged state starts anew
	}
	records := h.Step(&st, ev, now)
	if ev.Name == "sessionEnd" {
		_ = os.Remove(path)
	} else if err := writeFile(path, &st); err != nil {
		return false, err
	}
	records = append(records, endIdle(dir, h, now, path)...)
	if len(records) == 0 {
		return false, nil
	}
	return true, appendSpool(dir, records)
}

// endIdle ends the conversations silent for idleAfter (their sessionEnd
// never came: an editor closed, a crash), at most every gcEvery.
func endIdle(dir string, h *spanmap.Hooks, now time.Time, except string) []spanmap.SpanRecord {
	marker := filepath.Join(dir, "gc")
	if fi, err := os.Stat(marker); err == nil && now.Sub(fi.ModTime()) < gcEvery {
		return nil
	}
	_ = os.WriteFile(marker, nil, 0o600)
	_ = os.Chtimes(marker, now, now)
	var out []spanmap.SpanRecord
	files, _ := filepath.Glob(filepath.Join(dir, "conversations", "*.json"))
	for _, f := range files {
		if f == except {
			continue
		}
		var st spanmap.HookState
		b, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(b, &st) != nil {
			_ = os.Remove(f)
			continue
		}
		if now.Sub(st.Last) >= idleAfter {
			out = append(out, h.End(&st, st.Last, "idle")...)
			_ = os.Remove(f)
		}
	}
	return out
}

func conversationFile(dir, conversation string) string {
	sum := sha256.Sum256([]byte(conversation))
	return filepath.Join(dir, "conversations", hex.EncodeToString(sum[:12])+".json")
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
	var buf bytes.Buffer
	for _, r := range records {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
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
	if held+int64(buf.Len()) > maxSpool {
		return fmt.Errorf("spool full: %d records dropped", len(records))
	}
	return appendFile(ownRecords(dir), buf.Bytes())
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
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(make([]byte, 0, 64<<10), maxSpool)
			for sc.Scan() {
				var r spanmap.SpanRecord
				if json.Unmarshal(sc.Bytes(), &r) == nil {
					out = append(out, r)
				}
			}
		}
	}
	return out, nil
}
