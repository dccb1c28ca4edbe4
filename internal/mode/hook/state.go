package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/atomicfile"
	"github.com/cursor-otel/cursor-otel/internal/filelock"
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

// The state directory holds journal/ (each conversation's events not yet
// in a turn built, see journal.go), conversations/ (each conversation's
// checkpoint: its state after the turns built so far, and what a build
// killed midway left to finish), damaged/ (what was found damaged, set
// aside) and build.lock, which the one builder holds while it builds
// (hooks never take it: they only add to the journal).
const (
	forgetAt  = 30 * 24 * time.Hour // a conversation silent this long is forgotten
	gcEvery   = time.Hour           // how often the builder looks for such
	buildLock = "build.lock"
)

// checkpoint is a conversation's state after the turns built so far.
// Staged and Consumed are a build written down and not yet finished:
// its parts staged in the spool, to be published, and the journal's
// entries it used, to be removed.
type checkpoint struct {
	spanmap.HookState
	Staged   []spool.Staged `json:"staged,omitempty"`
	Consumed []string       `json:"consumed,omitempty"`
	// Late counts events that came after their turn was built.
	Late int `json:"late,omitempty"`
	// SetLast is the turn this build makes its conversation's last, put
	// in the conversation store once the checkpoint holds it: put there
	// sooner, a build killed before its checkpoint would read its own
	// turn back as the one before it, and link the turn to itself.
	SetLast *lastTurn `json:"set_last,omitempty"`
}

// lastTurn is a conversation's last turn, to be recorded as such.
type lastTurn struct {
	ConversationID string            `json:"conversation_id"`
	Root           *spanmap.HookRoot `json:"root"`
}

// loadCheckpoint reads a conversation's checkpoint; a damaged one is set
// aside (named in aside) and the conversation goes on from nothing.
func loadCheckpoint(dir, name string) (cp checkpoint, aside string) {
	path := conversationFile(dir, name)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cp, ""
	}
	if err == nil {
		if err = json.Unmarshal(b, &cp); err == nil {
			return cp, ""
		}
	}
	return checkpoint{}, setAside(dir, path)
}

// saveCheckpoint writes a conversation's checkpoint whole or not at all.
func saveCheckpoint(dir, name string, cp *checkpoint) error {
	if err := spool.MkdirAll(filepath.Join(dir, "conversations")); err != nil {
		return err
	}
	b, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	path := conversationFile(dir, name)
	if err := atomicfile.Write(path, b); err != nil {
		return err
	}
	// Its time is its last event's: forget reads it.
	_ = os.Chtimes(path, cp.Last, cp.Last)
	return nil
}

// lockBuild takes the builder's lock, waiting for it: only the
// background delivery, flush and a wrapped run's link to its turn take
// it, never a hook.
func lockBuild(dir string) (func(), error) {
	if err := spool.MkdirAll(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, buildLock)
	if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() {
		setAside(dir, path) // a directory in its place: no lock could be had
	}
	unlock, err := filelock.LockOwn(path, true)
	if err == nil {
		atomicfile.GiveToDirOwner(path) // a root run's builder and the user's take the same lock
	}
	return unlock, err
}

// forget removes, at most every gcEvery, the checkpoints of
// conversations silent for forgetAt (kept after their turns for the
// next turn to link to, but not for ever) whose journal is empty.
func forget(dir string, now time.Time) {
	marker := filepath.Join(dir, "gc")
	if fi, err := os.Stat(marker); err == nil && now.Sub(fi.ModTime()) < gcEvery {
		return
	}
	_ = touch(marker, now)
	entries, _ := os.ReadDir(filepath.Join(dir, "conversations"))
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil || now.Sub(fi.ModTime()) < forgetAt {
			continue
		}
		name := filepath.Base(e.Name())
		name = name[:len(name)-len(filepath.Ext(name))]
		if des, _ := os.ReadDir(journalOf(dir, name)); len(des) > 0 {
			continue
		}
		_ = os.Remove(filepath.Join(dir, "conversations", e.Name()))
		_ = os.Remove(journalOf(dir, name))
	}
}

// touch makes a mark file with the time now, the user's even when a root
// run makes it.
func touch(path string, now time.Time) error {
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		return err
	}
	atomicfile.GiveToDirOwner(path)
	return os.Chtimes(path, now, now)
}

// conversationName is a conversation's name in the state directory.
func conversationName(conversation string) string {
	sum := sha256.Sum256([]byte(conversation))
	return hex.EncodeToString(sum[:12])
}

func conversationFile(dir, name string) string {
	return filepath.Join(dir, "conversations", name+".json")
}
