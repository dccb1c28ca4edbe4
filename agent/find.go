package agent

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Names are the names cursor-agent goes by, searched in this order.
var Names = []string{"cursor-agent", "agent"}

// NotFoundError says no cursor-agent was found, and where it was looked for.
type NotFoundError struct {
	Searched string
}

func (e *NotFoundError) Error() string {
	return e.Searched
}

// Find returns the cursor-agent to run: explicit when given (a path, or a
// name looked up on PATH), else the first of Names on path that is not the
// program at self. Self is skipped however it is reached: by symlink, hard
// link or copy, so that cursor-otel installed as cursor-agent never runs
// itself.
func Find(explicit, path, self string) (string, error) {
	if explicit != "" {
		if strings.ContainsRune(explicit, os.PathSeparator) {
			if _, err := os.Stat(explicit); err != nil {
				return "", &NotFoundError{Searched: fmt.Sprintf("%s: %v", explicit, errors.Unwrap(err))}
			}
			return explicit, nil
		}
		found, err := lookIn(explicit, path, nil)
		if err != nil {
			return "", &NotFoundError{Searched: fmt.Sprintf("%s not found on PATH", explicit)}
		}
		return found, nil
	}
	me := newSelf(self)
	for _, name := range Names {
		if found, err := lookIn(name, path, me); err == nil {
			return found, nil
		}
	}
	return "", &NotFoundError{Searched: fmt.Sprintf("no %s on PATH (cursor-otel itself skipped); install cursor-agent or set --agent / CURSOR_OTEL_AGENT",
		strings.Join(Names, " or "))}
}

// lookIn finds an executable named name in the directories of path, skipping
// any that is me.
func lookIn(name, path string, me *self) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		candidate := filepath.Join(dir, name)
		info, err := os.Stat(candidate)
		if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			continue
		}
		if me.is(candidate, info) {
			continue
		}
		if _, err := exec.LookPath(candidate); err == nil {
			return candidate, nil
		}
	}
	return "", fs.ErrNotExist
}

// self is the running program, compared with candidates by file identity
// and, for a copy, by content.
type self struct {
	path string
	info fs.FileInfo
	sum  []byte // sha256 of the file, computed when a candidate's size matches
}

func newSelf(path string) *self {
	info, err := os.Stat(path)
	if err != nil {
		return nil
	}
	return &self{path: path, info: info}
}

func (s *self) is(candidate string, info fs.FileInfo) bool {
	if s == nil {
		return false
	}
	if os.SameFile(s.info, info) {
		return true // the file itself, a symlink to it, or a hard link
	}
	if info.Size() != s.info.Size() {
		return false
	}
	if s.sum == nil {
		s.sum = fileSum(s.path)
	}
	return s.sum != nil && bytes.Equal(s.sum, fileSum(candidate))
}

func fileSum(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil
	}
	return h.Sum(nil)
}
