package replay

import (
	"runtime/debug"
	"strconv"
)

// gcPercent is replay's GOGC: see memoryLimit. Replay's live heap is a
// few MiB, so 800 lets the heap grow to the limit below between
// collections: a thinking-heavy replay is a little faster for a few MiB
// more RSS than at 400 under a 40 MiB limit, where the bench's floor
// gains nothing
// (docs/performance.md, "measured choices").
const gcPercent = 800

// baseMemoryLimit is replay's soft memory limit for streams of ordinary
// lines: its state is per open span, a few MiB live, with the blocks of
// lines decoded ahead (parse.DecodeAhead).
const baseMemoryLimit = 48 << 20

// bytesPerLineByte is the room a line takes while it is read and recorded:
// the line reader's buffer as it grows, the tool output decoded from it,
// its redacted copy and, with capture, the attribute waiting for export.
const bytesPerLineByte = 8

// memoryLimit tunes the garbage collector for replay, unless the user did
// with GOGC or GOMEMLIMIT. Replay is a batch job whose live heap is small,
// so collecting at 5× it rather than 2× spends less CPU, and the memory
// limit bounds what that costs in RSS. A fixed limit, though, made a
// stream with 40 MB tool results collect without pause, over twice as
// slow (docs/performance.md, "measured choices"), so the limit grows with
// the longest line read. The
// returned func is given each such line's size; it is nil when the user
// set GOMEMLIMIT.
func memoryLimit(getenv func(string) string) (longer func(size int)) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if getenv("GOMEMLIMIT") != "" {
		return nil
	}
	debug.SetMemoryLimit(baseMemoryLimit)
	return func(size int) {
		debug.SetMemoryLimit(baseMemoryLimit + bytesPerLineByte*int64(size))
	}
}

// GCEnv is the collector's setting replay makes for itself on streams of
// ordinary lines, as environment variables: for a program that is to
// collect as replay does (the bench's floor, which makes replay's spans
// without cursor-otel around them).
func GCEnv() []string {
	return []string{"GOGC=" + strconv.Itoa(gcPercent), "GOMEMLIMIT=" + strconv.Itoa(baseMemoryLimit)}
}
