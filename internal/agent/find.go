package agent

import (
	"debug/buildinfo"
	"errors"
	"fmt"
	"io/fs"
	"os"
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

// Self is the running cursor-otel, as Find must skip it: its executable,
// and the import path of its main package, which every build of
// cursor-otel, of any version, records (Go's build information).
type Self struct {
	Path    string // os.Executable
	Program string // debug.ReadBuildInfo().Path: github.com/cursor-otel/cursor-otel
}

// Find returns the cursor-agent to run: explicit when given (a path, or a
// name looked up on PATH), else the first of Names on path that is not
// cursor-otel. cursor-otel is recognised however it is reached (symlink,
// hard link, copy) and whichever version it is, so that two builds
// installed as cursor-agent never run each other; an explicit setting that
// names cursor-otel is an error. Names are looked up as the platform's
// shell does (on Windows: with PATHEXT's extensions, then .ps1).
func Find(explicit, path string, self Self) (string, error) {
	return hostSearcher().find(explicit, path, newSelf(self))
}

func (s searcher) find(explicit, path string, me *self) (string, error) {
	skipMe := func(candidate string, info fs.FileInfo) bool { return me.is(candidate, info) }
	if explicit != "" {
		var found string
		var info fs.FileInfo
		var ok bool
		if s.hasDir(explicit) {
			// Not runnable as it is, it is still run, and fails to start
			// (exit 126) as it would without cursor-otel.
			if found, info, ok = s.resolve(explicit, nil); !ok {
				var err error
				if info, err = s.stat(explicit); err != nil {
					return "", &NotFoundError{Searched: fmt.Sprintf("%s: %v", explicit, cause(err))}
				}
				found = explicit
			}
		} else {
			if found, ok = s.look(explicit, path, nil); !ok {
				return "", &NotFoundError{Searched: fmt.Sprintf("%s not found on PATH", explicit)}
			}
			info, _ = s.stat(found)
		}
		if info != nil && me.is(found, info) {
			return "", &NotFoundError{Searched: fmt.Sprintf("--agent / CURSOR_OTEL_AGENT names %s, which is cursor-otel itself: name the real cursor-agent", explicit)}
		}
		return found, nil
	}
	for _, name := range Names {
		if found, ok := s.look(name, path, skipMe); ok {
			return found, nil
		}
	}
	return "", &NotFoundError{Searched: fmt.Sprintf("no %s on PATH (cursor-otel itself skipped); install cursor-agent or set --agent / CURSOR_OTEL_AGENT",
		strings.Join(Names, " or "))}
}

// cause is err without the operation and path it carries.
func cause(err error) error {
	if inner := errors.Unwrap(err); inner != nil {
		return inner
	}
	return err
}

// self is the running program, compared with candidates by file identity
// and by what program they are.
type self struct {
	info    fs.FileInfo
	program string
}

func newSelf(s Self) *self {
	me := &self{program: s.Program}
	if info, err := os.Stat(s.Path); err == nil {
		me.info = info
	}
	return me
}

// is says the file at candidate is cursor-otel: this very file (a symlink
// or hard link to it), or any Go program whose main package is
// cursor-otel's (a copy, another version). Reading a program's build
// information reads its headers, not the whole file.
func (s *self) is(candidate string, info fs.FileInfo) bool {
	if s == nil {
		return false
	}
	if s.info != nil && os.SameFile(s.info, info) {
		return true
	}
	if s.program == "" {
		return false
	}
	bi, err := buildinfo.ReadFile(candidate)
	return err == nil && bi.Path == s.program
}
