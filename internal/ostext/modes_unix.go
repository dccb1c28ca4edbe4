//go:build !windows

package ostext

// KeepsModes says the file system keeps permission bits (0600, 0700).
const KeepsModes = true
