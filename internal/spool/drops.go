package spool

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Fate is what became of a session the spool was given.
type Fate string

const (
	FateKept     Fate = "kept"      // on disk, for a later delivery
	FateTooLarge Fate = "too_large" // alone heavier than the bound: dropped
)

// Why sessions are dropped, as the drop log names them.
const (
	dropBound    = "bound"     // the oldest, to keep the spool within its bound
	dropTooLarge = "too-large" // a session heavier than the bound by itself
)

// Drops counts the sessions dropped since the user was last told by a
// flush: every drop is written to the log as it happens, by whichever
// process drops (a run, a background delivery), and stays until a
// foreground flush says it.
type Drops struct {
	Bound    int // the oldest sessions, to keep the spool within its bound
	TooLarge int // sessions heavier than the bound alone, never kept
}

// Any says something was dropped.
func (d Drops) Any() bool { return d.Bound+d.TooLarge > 0 }

// addDropped appends a drop to the log. One short write in append mode:
// processes dropping at once never lose each other's lines.
func (d *Dir) addDropped(why string, n int) {
	f, err := openAppendOwn(filepath.Join(d.Path, droppedFile))
	if err != nil {
		return
	}
	_, _ = fmt.Fprintf(f, "%s %d\n", why, n)
	_ = f.Close()
}

// Dropped reads the drop log, leaving it.
func (d *Dir) Dropped() Drops {
	b, _ := os.ReadFile(filepath.Join(d.Path, droppedFile))
	return parseDrops(b)
}

// takeDropped reads the drop log and empties it: moved aside first, so
// that a drop logged meanwhile goes to a new log, never lost.
func (d *Dir) takeDropped() Drops {
	path := filepath.Join(d.Path, droppedFile)
	taken := path + fmt.Sprintf(".taken-%d", os.Getpid())
	if os.Rename(path, taken) != nil {
		return Drops{}
	}
	b, _ := os.ReadFile(taken)
	_ = os.Remove(taken)
	return parseDrops(b)
}

// parseDrops reads a drop log: "WHY N" a line; a bare number is the
// count an older cursor-otel wrote (sessions dropped at the bound).
func parseDrops(b []byte) Drops {
	var out Drops
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		why, count, ok := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if !ok {
			why, count = dropBound, why
		}
		n, err := strconv.Atoi(count)
		if err != nil || n < 0 {
			continue
		}
		switch why {
		case dropBound:
			out.Bound += n
		case dropTooLarge:
			out.TooLarge += n
		}
	}
	return out
}

// TakeDropped is the sessions dropped since the user was last told, for
// a flush that delivers nothing to say; the log is emptied.
func (d *Dir) TakeDropped() Drops { return d.takeDropped() }
