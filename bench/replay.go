package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/mode/replay"
	"github.com/cursor-otel/cursor-otel/internal/otlprecv"
	"github.com/cursor-otel/cursor-otel/internal/synth"
)

// shape is a kind of stream the replay targets hold on.
type shape struct {
	name string
	// recordings are what it is built from; write builds it.
	recordings []string
	write      func(w io.Writer, size int64, recordings [][]byte, pass synth.Counts) (synth.Counts, error)
}

// shapes: the thinking-heavy mix (this project's examples, the real
// recordings, and generated sessions: about 100 spans per MB) and the
// span-dense one (the real recordings over again with fresh ids, as a CI
// fleet's archive of short runs: about 500 spans per MB). Without
// ../shared the dense one is made of the examples.
func shapes() []shape {
	real := "../shared/fixtures/real/*.ndjson"
	if m, _ := filepath.Glob(real); len(m) == 0 {
		real = "examples/*.ndjson"
	}
	return []shape{
		{"thinking-heavy mix", []string{"examples/*.ndjson", "../shared/fixtures/real/*.ndjson"}, synth.Mix},
		{"span-dense mix", []string{real}, synth.Dense},
	}
}

// arrived counts the spans, and the session and tool spans, among names.
func arrived(names map[string]int) (spans, sessions, tools int) {
	for name, c := range names {
		spans += c
		switch {
		case strings.HasPrefix(name, "execute_tool "):
			tools += c
		case strings.HasPrefix(name, "invoke_agent "):
			sessions += c
		}
	}
	return spans, sessions, tools
}

// replayer runs cursor-otel replay against a counting receiver.
type replayer struct {
	binary string
	floor  string // bench/floor: the SDK and exporter alone
	recv   *otlprecv.Receiver
}

// replayed is one replay and the spans of it that arrived.
type replayed struct {
	run
	spans, sessions, tools int
}

// replay replays path with export, stdout to /dev/null, env added to the
// environment.
func (r replayer) replay(path string, quiet bool, env ...string) (replayed, error) {
	args := []string{"replay", path}
	if quiet {
		args = []string{"replay", "--quiet", path}
	}
	return r.exporting(r.binary, args, env...)
}

// floorSpans has the floor program make and export n spans shaped as
// replay's, with no stream read: the least the SDK and exporter cost. Its
// garbage collector is set as replay sets its own: with Go's defaults the
// floor is slower than replay can be, a floor replay could undercut
// (docs/performance.md, "measured choices"). Given a stream's path, the
// floor reads it too, beside the spans, as the least a replay of it must
// (bench/floor read): what any replay of the stream costs, however it
// decodes.
func (r replayer) floorSpans(n int, path ...string) (replayed, error) {
	args := []string{"spans", strconv.Itoa(n)}
	if len(path) > 0 {
		args = append([]string{"read", strconv.Itoa(n)}, path...)
	}
	got, err := r.exporting(r.floor, args, replay.GCEnv()...)
	if err == nil && got.spans < n {
		err = fmt.Errorf("floor %s: %d arrived", strings.Join(args, " "), got.spans)
	}
	return got, err
}

// exporting runs name exporting to the receiver, stdout to /dev/null, env
// added to the environment, and counts the spans of it that arrived. A
// run that fails or writes to stderr is an error.
func (r replayer) exporting(name string, args []string, env ...string) (replayed, error) {
	n0, s0, t0 := arrived(r.recv.Names())
	got, err := measure(nil, append([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + r.recv.Endpoint}, env...), name, args...)
	if err == nil && (got.exit != 0 || got.stderr != "") {
		err = fmt.Errorf("%s %s: exit %d: %s", filepath.Base(name), strings.Join(args, " "), got.exit, got.stderr)
	}
	n1, s1, t1 := arrived(r.recv.Names())
	return replayed{got, n1 - n0, s1 - s0, t1 - t0}, err
}

// stream is a generated stream on disk and what it holds.
type stream struct {
	path   string
	counts synth.Counts
}

// generate writes a stream of shape s, at least size bytes, into dir. One
// pass of its recordings is replayed first to count what it makes.
func generate(r replayer, dir string, s shape, size int64) (stream, error) {
	recs, err := synth.Recordings(s.recordings...)
	if err != nil {
		return stream{}, err
	}
	one := filepath.Join(dir, "recordings.ndjson")
	if err := os.WriteFile(one, bytes.Join(recs, nil), 0o644); err != nil {
		return stream{}, err
	}
	got, err := r.replay(one, true)
	if err != nil {
		return stream{}, err
	}
	pass := synth.Counts{Sessions: got.sessions, ToolCalls: got.tools}
	for _, b := range recs {
		pass.Bytes += int64(len(b))
		pass.Lines += bytes.Count(b, []byte{'\n'})
	}

	path := filepath.Join(dir, fmt.Sprintf("stream-%dMB.ndjson", size>>20))
	var counts synth.Counts
	err = writeStream(path, func(w io.Writer) (err error) {
		counts, err = s.write(w, size, recs, pass)
		return err
	})
	return stream{path: path, counts: counts}, err
}

// writeStream creates path and writes it through a buffer with write.
func writeStream(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// maxToRead is the most replay may take against the floor making and
// exporting as many spans with the stream read beside them (floor read),
// the least any replay of the stream costs: what cursor-otel adds to that
// (decoding, the span model, redaction, reports) costs at most half of it.
// (Against the floor's spans alone, reading the thinking-heavy mix is
// already 1.24-1.37×: a target there judged the stream, not replay.)
const maxToRead = 1.5

// shape measures replay on a small and a large stream of shape sh beside
// cat, jq and the floor, and checks the targets: at most maxToRead the
// time of floor read on the large one, every tool call arriving,
// peak RSS at most 64 MiB and within 16 MiB of the small stream's.
func (r replayer) shape(t *targets, dir string, sh shape, sizes []int64, runs int) error {
	fmt.Printf("\n%s\n%-8s %-22s %8s %9s %10s %11s %7s\n", sh.name, "stream", "command", "seconds", "MB/s", "spans/s", "peak RSS", "CPU s")
	peaks := map[int64]int64{}
	for _, sz := range sizes {
		s, err := generate(r, dir, sh, sz)
		if err != nil {
			return err
		}
		mb := float64(s.counts.Bytes) / 1e6
		row := func(name string, m replayed) float64 {
			rate, spans := mb/m.wall.Seconds(), "-"
			if m.spans > 0 {
				spans = fmt.Sprintf("%.0f", float64(m.spans)/m.wall.Seconds())
			}
			fmt.Printf("%-8s %-22s %8.2f %9.1f %10s %7.1f MiB %7.2f\n", fmt.Sprintf("%.0f MB", mb), name, m.wall.Seconds(), rate, spans, float64(m.peakRSS)/(1<<20), m.cpu.Seconds())
			return rate
		}
		var cat, jq, quiet, tree, floor, least []replayed
		lost, spans := 0, 0 // tool spans that did not arrive, over every run; spans of one
		// In rounds: replay and the floor each round, back to back, so
		// that their ratio is taken round by round.
		for range runs {
			m, err := measure(nil, nil, "cat", s.path)
			if err != nil {
				return err
			}
			cat = append(cat, replayed{run: m})
			if m, err = measure(nil, nil, "jq", "-c", ".", s.path); err != nil {
				return fmt.Errorf("jq: %w", err)
			}
			jq = append(jq, replayed{run: m})
			for _, q := range []bool{true, false} {
				m, err := r.replay(s.path, q)
				if err != nil {
					return err
				}
				lost += s.counts.ToolCalls - m.tools
				spans = m.spans
				if q {
					quiet = append(quiet, m)
				} else {
					tree = append(tree, m)
				}
			}
			m2, err := r.floorSpans(spans)
			if err != nil {
				return err
			}
			floor = append(floor, m2)
			if m2, err = r.floorSpans(spans, s.path); err != nil {
				return err
			}
			least = append(least, m2)
		}
		var rq, rf, rl []time.Duration
		for i := range quiet {
			rq, rf, rl = append(rq, quiet[i].wall), append(rf, floor[i].wall), append(rl, least[i].wall)
		}
		toFloor, toRead, leastToFloor := midRatio(ratios(rq, rf)), midRatio(ratios(rq, rl)), midRatio(ratios(rl, rf))
		catRate, jqRate := row("cat", median(cat)), row("jq -c .", median(jq))
		rate := row("cursor-otel replay -q", median(quiet))
		row("cursor-otel replay", median(tree))
		floorRate := row("SDK+exporter alone", median(floor))
		row("the same, reading too", median(least))
		if sz == sizes[len(sizes)-1] {
			// jq is shown for scale, not a target: the floor is the yardstick.
			fmt.Printf("         replay at %.1f× jq's speed, %.3f× cat's; the SDK and exporter alone make and export as many spans, reading nothing, at %.1f× jq's speed (bench/floor)\n",
				rate/jqRate, rate/catRate, floorRate/jqRate)
			fmt.Printf("         the floor with the stream read beside it, as the least a replay must (each line found, and its type; bench/floor read): %.2f× the floor's time; replay %.2f× the floor's\n", leastToFloor, toFloor)
			t.check(toRead <= maxToRead, "%s, %.0f MB: replay -q takes %.2f s, %.2f× floor read's %.2f s for its %d spans (median of %d paired runs; target %.1f×)",
				sh.name, mb, median(quiet).wall.Seconds(), toRead, median(least).wall.Seconds(), spans, runs, maxToRead)
		} else {
			fmt.Printf("         replay at %.1f× jq's speed, %.3f× cat's, %.2f× floor read's time (the targets are on the large stream)\n", rate/jqRate, rate/catRate, toRead)
		}
		peaks[sz] = max(median(quiet).peakRSS, median(tree).peakRSS)
		fmt.Printf("         %d lines, %d sessions, %d spans (%.0f per MB), %d tool calls\n", s.counts.Lines, s.counts.Sessions, spans, float64(spans)/mb, s.counts.ToolCalls)
		t.check(lost == 0, "%s, %.0f MB: every tool call arrived as a span, in each of %d replays (%d missing)", sh.name, mb, 2*runs, lost)
		os.Remove(s.path)
	}
	small, large := sizes[0], sizes[len(sizes)-1]
	peak := float64(peaks[large]) / (1 << 20)
	t.check(peak <= 64, "%s: peak RSS on %d MB %.1f MiB (target 64 MiB)", sh.name, large>>20, peak)
	t.check(peaks[large]-peaks[small] <= 16<<20, "%s: peak RSS grows %.1f MiB from %d MB to %d MB (target 16 MiB)",
		sh.name, float64(peaks[large]-peaks[small])/(1<<20), small>>20, large>>20)
	return nil
}
