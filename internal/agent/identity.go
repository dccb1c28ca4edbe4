package agent

import "os"

// Is says the file at path is cursor-otel, as Find tells it: this very
// file (through any symlink or hard link), or a build of the same program
// (a copy, a renamed binary, another version). False when the file cannot
// be read.
func (s Self) Is(path string) bool {
	info, err := os.Stat(path)
	return err == nil && newSelf(s).is(path, info)
}
