package spool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cursor-otel/cursor-otel/internal/atomicfile"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// A writer that must hand spans to the spool exactly once, though it may
// be killed at any instruction (the hooks' journal), stages them first:
// written under names no deliverer reads, and the same names again if
// it is run again. It then writes down, in its own state, that they are
// staged, and publishes them: a rename each, done once (a staged file
// gone is a part published). Killed anywhere, a rerun finishes the work
// without a part kept twice.

// stagePrefix starts the names of staged parts.
const stagePrefix = ".staged-"

// Staged is a part staged: its name until published, and after.
type Staged struct {
	Temp  string `json:"temp"`
	Final string `json:"final"`
	Spans int    `json:"spans"`
}

// Stage writes the spans of each trace, as parts for the destination
// digest dest, under staged names derived from key and stamp: staging
// the same key again writes the same names. A session heavier than the
// bound is not staged: it is returned in tooLarge, for the caller to
// send itself (or say dropped, DropTooLarge).
func (d *Dir) Stage(dest, key string, stamp int64, spans []sdktrace.ReadOnlySpan) (staged []Staged, tooLarge [][]sdktrace.ReadOnlySpan, err error) {
	if err := MkdirAll(d.Path); err != nil {
		return nil, nil, fmt.Errorf("spool: %w", err)
	}
	byTrace, order := sessions(spans)
	for _, id := range order {
		spans := byTrace[id]
		encoded, err := d.encodeParts(spans, convert(spans))
		if err != nil {
			return nil, nil, err
		}
		if encoded.size > d.Max {
			tooLarge = append(tooLarge, spans)
			continue
		}
		for i, b := range encoded.parts {
			final := fmt.Sprintf("%020d-%s-0-%03d-%s%s", stamp, id, i, dest, partSuffix)
			temp := stagePrefix + key + "-" + final
			if err := d.write(temp, b); err != nil {
				return nil, nil, err
			}
			atomicfile.GiveToDirOwner(filepath.Join(d.Path, temp)) // a root run's build of the user's turns is the user's
			staged = append(staged, Staged{Temp: temp, Final: final, Spans: encoded.spans[i]})
		}
	}
	return staged, tooLarge, nil
}

// DropTooLarge counts n sessions dropped as heavier than the bound, for
// the next delivery to say.
func (d *Dir) DropTooLarge(n int) {
	if n > 0 {
		d.addDropped(dropTooLarge, n)
	}
}

// Publish makes staged parts parts, each once: one whose staged file is
// gone was published before. It then keeps the spool within its bound,
// the oldest sessions going first; the parts it published are not
// dropped now (the delivery that follows sends them), but by the next
// that must make room.
func (d *Dir) Publish(staged []Staged) error {
	var written int64
	published := map[string]bool{}
	for _, s := range staged {
		temp := filepath.Join(d.Path, s.Temp)
		info, err := os.Stat(temp)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			err = os.Rename(temp, filepath.Join(d.Path, s.Final))
		}
		if err != nil {
			return fmt.Errorf("spool: %w", err)
		}
		written += info.Size()
		published[s.Final] = true
	}
	if len(published) > 0 {
		d.bound(written, published)
	}
	return nil
}

// Unstaged removes the staged parts whose key starts with prefix that
// are not in keep: a writer killed after staging them and before writing
// down that it did stages anew, under another key.
func (d *Dir) Unstaged(prefix string, keep []Staged) {
	entries, _ := os.ReadDir(d.Path)
	kept := map[string]bool{}
	for _, s := range keep {
		kept[s.Temp] = true
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), stagePrefix+prefix) && !kept[e.Name()] {
			_ = os.Remove(filepath.Join(d.Path, e.Name()))
		}
	}
}
