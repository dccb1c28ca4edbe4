package conversation

import "os"

// openRecord opens path for writing if it is a record of size bytes: a
// regular file.
func openRecord(path string, size int64) (*os.File, bool) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, false
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() != size {
		f.Close()
		return nil, false
	}
	return f, true
}
