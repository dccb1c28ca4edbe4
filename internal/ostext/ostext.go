// Package ostext says what the operating system says and keeps, for tests
// that must read the same on Linux, macOS and Windows: the words of its
// errors, and whether it keeps a file's mode bits.
package ostext

import (
	"errors"
	"io/fs"
	"os"
)

// Missing is the system's own words for a path that is not there ("no
// such file or directory"; on Windows "The system cannot find the file
// specified.", or "...the path..." when a directory is missing too), as
// an error wrapping them ends.
func Missing(path string) string {
	_, err := os.Stat(path)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	if err != nil {
		return err.Error()
	}
	return ""
}
