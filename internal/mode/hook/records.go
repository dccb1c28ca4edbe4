package hook

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/filelock"
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// The hooks' records wait in the state directory, a file per destination
// (spool-ID.ndjson, ID the destination's keyed digest, as the spool names
// its parts with; the key is the state directory's own), so that each is
// exported only where the hook that recorded it was sending: a delivery
// with other settings leaves them. A hook writes its records to a file of
// its own process first (records-PID.ndjson), and files them under its
// destination as soon as they are written. spool.ndjson is what an earlier
// cursor-otel recorded, with no destination.
const (
	earlierRecords = "spool.ndjson"
	recordsPrefix  = "spool-"
	ownPrefix      = "records-"
	recordsSuffix  = ".ndjson"
	// noOTLP is the destination of records made with no OTLP exporter
	// set: they go to whatever such settings export to.
	noOTLP = "none"
	// strayAfter is how old a process's own file must be to be taken for
	// one a hook that died before filing it left.
	strayAfter = time.Minute
)

// destinationID is where the settings read with getenv send records, as
// the files name it, making the state directory's key if there is none.
func destinationID(dir string, getenv func(string) string) (string, error) {
	to, ok := tracer.Destination(getenv)
	if !ok {
		return noOTLP, nil
	}
	return spool.Open(dir, 0).ID(to)
}

// destinationIDs are the names records kept for the settings read with
// getenv may carry.
func destinationIDs(dir string, getenv func(string) string) (to spool.Destination, ids map[string]bool, ok bool) {
	to, ok = tracer.Destination(getenv)
	if !ok {
		return to, map[string]bool{noOTLP: true}, false
	}
	return to, spool.Open(dir, 0).IDs(to), true
}

// ownRecords is the file this process's records are written to first.
func ownRecords(dir string) string {
	return filepath.Join(dir, ownPrefix+strconv.Itoa(os.Getpid())+recordsSuffix)
}

// recordsFile is the file of the records kept for the destination id.
func recordsFile(dir, id string) string {
	return filepath.Join(dir, recordsPrefix+id+recordsSuffix)
}

// fileRecords moves what this process recorded to its destination's file.
func fileRecords(dir, id string) error {
	unlock, err := filelock.Lock(filepath.Join(dir, "state.lock"), true)
	if err != nil {
		return err
	}
	defer unlock()
	own := ownRecords(dir)
	b, err := os.ReadFile(own)
	if err != nil || len(b) == 0 {
		return err
	}
	if err := appendFile(recordsFile(dir, id), b); err != nil {
		return err
	}
	return os.Remove(own)
}

func appendFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// keptRecords are the files of records, by destination id: unknownDest
// ("") for those with none (an earlier cursor-otel's, or a hook's that
// died before filing them).
func keptRecords(dir string, now time.Time) map[string][]string {
	entries, _ := os.ReadDir(dir)
	out := map[string][]string{}
	for _, e := range entries {
		name := e.Name()
		switch id, ok := strings.CutPrefix(name, recordsPrefix); {
		case name == earlierRecords:
			out[""] = append(out[""], filepath.Join(dir, name))
		case ok && strings.HasSuffix(id, recordsSuffix):
			id = strings.TrimSuffix(id, recordsSuffix)
			out[id] = append(out[id], filepath.Join(dir, name))
		case strings.HasPrefix(name, ownPrefix) && strings.HasSuffix(name, recordsSuffix):
			if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > strayAfter {
				out[""] = append(out[""], filepath.Join(dir, name))
			}
		}
	}
	return out
}

// pendingRecords says whether records wait for one of ids.
func pendingRecords(dir string, ids map[string]bool) bool {
	for id := range ids {
		if _, err := os.Stat(recordsFile(dir, id)); err == nil {
			return true
		}
	}
	return false
}

// countLines is how many records a file holds.
func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxSpool)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			n++
		}
	}
	return n
}

// HooksWaiting are the hooks' records (spans) kept for other
// destinations than the settings read with getenv, by destination.
func HooksWaiting(dir string, getenv func(string) string) []spool.Waiting {
	to, ids, _ := destinationIDs(dir, getenv)
	var out []spool.Waiting
	for id, files := range keptRecords(dir, time.Now()) {
		if ids[id] {
			continue
		}
		n := 0
		for _, f := range files {
			n += countLines(f)
		}
		if n == 0 {
			continue
		}
		w := spool.Open(dir, 0).Describe(id, to)
		if id == noOTLP {
			w.Address = "no OTLP collector (OTEL_TRACES_EXPORTER was not otlp)"
		}
		w.Sessions = n
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b spool.Waiting) int { return strings.Compare(a.Address, b.Address) })
	return out
}
