//go:build !linux

package agent

import "os"

// widen does nothing: pipes cannot be resized here (macOS grows a pipe's
// buffer on its own, up to 64 KiB).
func widen(*os.File) {}
