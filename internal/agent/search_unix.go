//go:build unix

package agent

import (
	"io/fs"
	"os"
	"os/exec"
)

// hostSearcher searches as a POSIX shell does: a file with an execute bit
// the user may use.
func hostSearcher() searcher {
	return searcher{stat: os.Stat, runnable: func(path string, info fs.FileInfo) bool {
		if info.IsDir() || info.Mode()&0o111 == 0 {
			return false
		}
		_, err := exec.LookPath(path) // the access check for this user
		return err == nil
	}}
}
