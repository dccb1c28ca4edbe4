package hook

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/atomicfile"
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/parse"
)

// A conversation's journal is a directory of its hook events, a file
// each (journal/NAME/STAMP-PID-RAND.json), written whole under a
// temporary name and renamed into place: a hook killed at any
// instruction leaves its event whole or not at all, and no hook waits on
// another's lock to write. The background delivery builds each turn from
// its events once it has closed (spanmap.Hooks.Build), and removes them
// only once the turn's spans are in the spool.
const (
	journalDir   = "journal"
	entrySuffix  = ".json"
	tempStaleFor = time.Minute
)

// journalOf is a conversation's journal directory.
func journalOf(dir, name string) string { return filepath.Join(dir, journalDir, name) }

// journalEntry is an entry as its file holds it: the span model's, and
// where its hook sent reports and whether it captured content (nil in an
// entry an older version wrote).
type journalEntry struct {
	parse.HookEntry
	Reports *reportTo `json:"reports,omitempty"`
	Capture *bool     `json:"capture,omitempty"`
	// Person is the event's person as the hook's settings allow the
	// metrics to name them (CURSOR_OTEL_METRICS_USER): hashed already, or
	// none.
	Person *settings.Person `json:"person,omitempty"`
}

// appendEntry writes one event to its conversation's journal.
func appendEntry(dir string, e journalEntry) error {
	jd := journalOf(dir, conversationName(e.Event.ConversationID))
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	var r [4]byte
	_, _ = rand.Read(r[:])
	name := fmt.Sprintf("%020d-%d-%s%s", e.At.UnixNano(), os.Getpid(), hex.EncodeToString(r[:]), entrySuffix)
	// A build removes a journal it found empty; one removed between
	// making the directory and writing into it is made again, so that
	// the event (a turn's prompt, say) is not lost.
	for range 3 {
		if err = spool.MkdirAll(jd); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		if err = atomicfile.Write(filepath.Join(jd, name), b); !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return err
}

// journaled is a conversation's journal as read: its entries and their
// files.
type journaled struct {
	entries []parse.HookEntry
	reports []*reportTo // each entry's
	capture []*bool     // each entry's
	persons []*settings.Person
	files   []string
	aside   []string // damaged entries set aside
}

// readJournal reads a conversation's journal, oldest first. A damaged
// entry (cut short, garbage, not a file) is set aside, never fatal; a
// temporary file a killed hook left is removed once stale.
func readJournal(dir, name string, now time.Time) journaled {
	var j journaled
	jd := journalOf(dir, name)
	des, _ := os.ReadDir(jd)
	for _, de := range des {
		n := de.Name()
		path := filepath.Join(jd, n)
		if strings.HasPrefix(n, atomicfile.TempPrefix) {
			if atomicfile.Stale(de, now, tempStaleFor) {
				_ = os.Remove(path)
			}
			continue
		}
		if !strings.HasSuffix(n, entrySuffix) {
			continue
		}
		var e journalEntry
		b, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(b, &e)
		}
		if err == nil && e.Event.ConversationID == "" {
			err = fmt.Errorf("no conversation")
		}
		if err != nil {
			if aside := setAside(dir, path); aside != "" {
				j.aside = append(j.aside, aside)
			}
			continue
		}
		j.entries = append(j.entries, e.HookEntry)
		j.reports = append(j.reports, e.Reports)
		j.capture = append(j.capture, e.Capture)
		j.persons = append(j.persons, e.Person)
		j.files = append(j.files, path)
	}
	return j
}

// conversations are the names of the conversations with a journal.
func conversations(dir string) []string {
	des, _ := os.ReadDir(filepath.Join(dir, journalDir))
	var out []string
	for _, de := range des {
		if de.IsDir() {
			out = append(out, de.Name())
		}
	}
	slices.Sort(out)
	return out
}

// asideDir holds what was found damaged, for flush to name.
const asideDir = "damaged"

// setAside moves a damaged file (or directory) out of the way, keeping
// it; it returns its new path, or "" when it could not be moved (it is
// then removed, so that it costs nothing more).
func setAside(dir, path string) string {
	ad := filepath.Join(dir, asideDir)
	if spool.MkdirAll(ad) == nil {
		to := filepath.Join(ad, filepath.Base(path)+"."+strconv.FormatInt(time.Now().UnixNano(), 10))
		if os.Rename(path, to) == nil {
			return to
		}
	}
	_ = os.RemoveAll(path)
	return ""
}

// SetAside are the damaged files the hooks set aside, for flush to name.
func SetAside(dir string) []string {
	des, _ := os.ReadDir(filepath.Join(dir, asideDir))
	var out []string
	for _, de := range des {
		out = append(out, filepath.Join(dir, asideDir, de.Name()))
	}
	return out
}
