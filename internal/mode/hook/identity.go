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
	// Args are the flags the hook runs with (of CommandFlags), written
	// into its command.
	Args []string
}

// Command is the hooks.json command that runs this cursor-otel's hook.
func (p Program) Command() string { return commandFor(p.Path, p.Args, hostQuoting) }

// CheckArgs says why an argument cannot be written into a hooks.json
// command here, nil when all can.
func CheckArgs(args []string) error {
	for _, a := range args {
		if err := checkArg(a, hostQuoting); err != nil {
			return err
		}
	}
	return nil
}

// owns says a hooks.json command is a cursor-otel entry, whatever the
// binary is called, wherever it moved, whichever version wrote it. The
// command must have the shape Command writes ("PROGRAM hook", and flags of
// CommandFlags after it), and its
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
