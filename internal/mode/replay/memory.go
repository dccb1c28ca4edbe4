package replay

import (
	"runtime/debug"
	"strconv"
)

// gcPercent is replay's GOGC: see memoryLimit.
const gcPercent = 400

// baseMemoryLimit is replay's soft memory limit for streams of ordinary
// lines: its state is per open span, a few MiB live, with the batches of
// events decoded ahead (parse.DecodeAhead). At 32 MiB, eight batches ahead
// instead of two made the collector run 15% more often on the span-dense
// 210 MB mix (59-62 collections, 68-71); at 40 MiB it runs 45 times.
const baseMemoryLimit = 40 << 20

// bytesPerLineByte is the room a line takes while it is read and recorded:
// the line reader's buffer as it grows, the tool output decoded from it,
// its redacted copy and, with capture, the attribute waiting for export.
const bytesPerLineByte = 8

// memoryLimit tunes the garbage collector for replay, unless the user did
// with GOGC or GOMEMLIMIT. Replay is a batch job whose live heap is small,
// so collecting at 5× it rather than 2× spends a fifth less CPU, and the
// memory limit bounds what that costs in RSS. A fixed limit, though, made a
// stream with 40 MB tool results collect without pause (2.5 s instead of
// 1.1 s for 200 MB), so the limit grows with the longest line read. The
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
