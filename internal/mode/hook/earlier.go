package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/cursor-otel/cursor-otel/internal/atomicfile"
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// Earlier cursor-otel versions kept the hooks' finished spans in record
// files of the state directory: spool-ID.ndjson (ID the destination's
// digest under the state directory's own key), records-PID.ndjson (a
// hook's, not yet filed: its destination unknown) and spool.ndjson (no
// destination). The builder moves them to the spool, each to its own
// destination: those of today's, and those that name none (a hook of
// the same user, killed before it filed them); others wait for their
// settings. Each file is staged, then its staged list written down
// beside it (NAME.moving) and the file removed, then published: killed
// anywhere, the next build finishes, and nothing is kept twice.
const (
	earlierPrefix = "spool-"
	earlierOwn    = "records-"
	earlierNone   = "spool.ndjson"
	earlierSuffix = ".ndjson"
	movingSuffix  = ".moving"
)

// moveEarlier moves the earlier versions' record files for today's
// destination into the spool.
func (b *builder) moveEarlier() {
	dir := b.c.StateDir
	// What a move killed midway left.
	moving, _ := filepath.Glob(filepath.Join(dir, "*"+movingSuffix))
	for _, m := range moving {
		var staged []spool.Staged
		if data, err := os.ReadFile(m); err == nil && json.Unmarshal(data, &staged) == nil && b.spool.Publish(staged) == nil {
			_ = os.Remove(m)
		}
	}
	to, ok := tracer.Destination(b.getenv)
	if !ok {
		return
	}
	today := spool.Open(dir, 0).IDs(to) // the digests they were filed under
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, earlierSuffix) {
			continue
		}
		id, filed := strings.CutSuffix(strings.TrimPrefix(name, earlierPrefix), earlierSuffix)
		switch {
		case name == earlierNone, strings.HasPrefix(name, earlierOwn):
		case strings.HasPrefix(name, earlierPrefix) && filed && today[id]:
		default:
			continue // kept for another destination: it waits
		}
		dest, err := b.spool.ID(to)
		if err != nil {
			return
		}
		b.moveFile(filepath.Join(dir, name), dest)
	}
}

// moveFile moves one earlier record file into the spool, for dest.
func (b *builder) moveFile(path, dest string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	key := "earlier-" + filepath.Base(path)
	b.spool.Unstaged(key, nil)
	info, err := os.Stat(path)
	if err != nil {
		return
	}
	staged, tooLarge, err := b.spool.Stage(dest, key, info.ModTime().UnixNano(), b.earlierSpans(data))
	if err == nil {
		b.sendTooLarge(dest, tooLarge)
	}
	if err != nil {
		b.spool.Unstaged(key, nil)
		return
	}
	list, _ := json.Marshal(staged)
	if atomicfile.Write(path+movingSuffix, list) != nil || os.Remove(path) != nil {
		_ = os.Remove(path + movingSuffix)
		b.spool.Unstaged(key, nil)
		return
	}
	if b.spool.Publish(staged) == nil {
		_ = os.Remove(path + movingSuffix)
	}
}

// earlierSpans makes an earlier version's records into the spans the
// settings would export.
func (b *builder) earlierSpans(data []byte) []sdktrace.ReadOnlySpan {
	b.hooks.MakeEarlier(data)
	return b.got.take()
}
