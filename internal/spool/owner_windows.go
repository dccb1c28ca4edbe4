package spool

import (
	"io/fs"
	"os"
)

// ownerOther: Windows has no sudo -E sharing a user's profile; a file in
// the spool is taken to be the user's.
func ownerOther(fs.FileInfo) (uid int, other bool) { return 0, false }

// MkdirAll makes dir and what is missing above it.
func MkdirAll(dir string) error { return os.MkdirAll(dir, 0o700) }
