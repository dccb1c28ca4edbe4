//go:build steplog

// Package steplog, built with -tags steplog, writes the time of each of
// cursor-otel's own steps to the file $CURSOR_OTEL_STEPLOG, one
// "unix-nanoseconds name" line each, for docs/performance.md's timeline
// of a wrapped run. Without the tag it is empty calls, inlined away.
package steplog

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// The log is the process's: a step is marked wherever it happens, with
// nothing passed down to it. Only the tagged build has it.
var log struct {
	sync.Mutex
	lines []string
}

// Mark notes that the named step happens now.
func Mark(name string) { At(name, time.Now()) }

// At notes that the named step happened at t.
func At(name string, t time.Time) {
	log.Lock()
	log.lines = append(log.lines, fmt.Sprintf("%d %s\n", t.UnixNano(), name))
	log.Unlock()
}

// Write writes the steps to $CURSOR_OTEL_STEPLOG, if set: just before
// the process exits.
func Write() {
	Mark("exit")
	path := os.Getenv("CURSOR_OTEL_STEPLOG")
	if path == "" {
		return
	}
	log.Lock()
	defer log.Unlock()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	for _, l := range log.lines {
		_, _ = f.WriteString(l)
	}
}
