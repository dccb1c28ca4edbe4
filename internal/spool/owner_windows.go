package spool

import "io/fs"

// ownerOther: Windows has no sudo -E sharing a user's profile; a file in
// the spool is taken to be the user's.
func ownerOther(fs.FileInfo) (uid int, other bool) { return 0, false }
