package hook

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Program is the running cursor-otel as hooks.json entries name it: the
// path its entries run, and how to tell that another path is cursor-otel
// too (by file identity or build information, not by name).
type Program struct {
	Path string
	Is   func(path string) bool
}

// Command is the hooks.json command that runs this cursor-otel's hook.
func (p Program) Command() string { return Command(p.Path) }

// Command is the hooks.json command that runs the hook of the cursor-otel
// at self, quoted for the shell Cursor runs it with here (see quoting).
func Command(self string) string { return commandFor(self, hostQuoting) }

// owns says a hooks.json command is a cursor-otel entry, whatever the
// binary is called, wherever it moved, whichever version wrote it. The
// command must have the shape Command writes ("PROGRAM hook"), and its
// program be cursor-otel:
//   - a program named cursor-otel (the name the project builds it under,
//     a bare name found on PATH included);
//   - else an absolute path to a file that is cursor-otel (p.Is: this file,
//     or a build of the same program under any name);
//   - else an absolute path where no file is any more: a binary moved,
//     upgraded away or deleted. Nothing can be read of it, and only
//     cursor-otel writes entries of this shape by itself, so the shape is
//     taken as enough; a file there that is another program never is.
//
// A relative path (a user's "./hooks/x hook") is cursor-otel's only by
// its name: it is resolved against a directory cursor-otel cannot know.
func (p Program) owns(command string) bool {
	program, ok := programOf(command, hostQuoting)
	if !ok {
		return false
	}
	if name := programName(program, hostQuoting); name == "cursor-otel" || name == "cursor-otel.exe" {
		return true
	}
	if !filepath.IsAbs(program) {
		return false
	}
	if _, err := os.Stat(program); errors.Is(err, fs.ErrNotExist) {
		return true
	} else if err != nil {
		return false // there, but unreadable: not known to be ours
	}
	return p.Is != nil && p.Is(program)
}
