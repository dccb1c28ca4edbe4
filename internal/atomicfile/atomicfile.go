// Package atomicfile writes a file whole or not at all: under a
// temporary name in its directory, then renamed into place. What
// cursor-otel keeps may hold prompts (with content capture) and says
// where a user sends traces, so a file is its user's alone (0600); a
// root run (sudo -E) writing in a user's directory gives it to the
// directory's owner, so that the user's runs can use it.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// TempPrefix starts the names of files being written: a reader skips
// them, and Stale says which a writer killed midway left.
const TempPrefix = ".tmp-"

// Write writes b to path whole or not at all; a root run's is the
// directory owner's.
func Write(path string, b []byte) error { return write(path, b, true) }

// WriteOwn is Write for a file that stays its writer's, whoever owns the
// directory (a root run's kept session in a user's spool is root's).
func WriteOwn(path string, b []byte) error { return write(path, b, false) }

func write(path string, b []byte, toDirOwner bool) error {
	f, err := os.CreateTemp(filepath.Dir(path), TempPrefix+"*")
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	_, err = f.Write(b) // no fsync: a file cut short by a crash is a damaged one, which readers set aside
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if toDirOwner {
			GiveToDirOwner(f.Name()) // before it is in place: a reader never meets it root's
		}
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// Stale says a directory entry is a file a writer killed midway left:
// named as one being written, and older than after.
func Stale(e os.DirEntry, now time.Time, after time.Duration) bool {
	if !strings.HasPrefix(e.Name(), TempPrefix) {
		return false
	}
	info, err := e.Info()
	return err == nil && now.Sub(info.ModTime()) > after
}
