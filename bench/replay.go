package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/synth"
)

// recordings are the recorded streams the generated one is built from:
// this project's examples and, when present, the real recordings beside it.
func recordings() ([][]byte, error) {
	return synth.Recordings("examples/*.ndjson", "../shared/fixtures/real/*.ndjson")
}

// arrived counts the session and tool spans among names.
func arrived(names map[string]int) (sessions, tools int) {
	for name, c := range names {
		switch {
		case strings.HasPrefix(name, "execute_tool "):
			tools += c
		case strings.HasPrefix(name, "invoke_agent "):
			sessions += c
		}
	}
	return sessions, tools
}

// replayer runs cursor-otel replay against a counting receiver.
type replayer struct {
	binary string
	recv   *otlptest.Receiver
}

// replay replays path with export, stdout to /dev/null, and returns the run
// and the session and tool spans that arrived.
func (r replayer) replay(path string, quiet bool) (got run, sessions, tools int, err error) {
	s0, t0 := arrived(r.recv.Names())
	args := []string{"replay", path}
	if quiet {
		args = []string{"replay", "--quiet", path}
	}
	got, err = measure(nil, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + r.recv.Endpoint}, r.binary, args...)
	if err == nil && (got.exit != 0 || got.stderr != "") {
		err = fmt.Errorf("replay %s: exit %d: %s", path, got.exit, got.stderr)
	}
	s1, t1 := arrived(r.recv.Names())
	return got, s1 - s0, t1 - t0, err
}

// stream is a generated stream on disk and what it holds.
type stream struct {
	path   string
	counts synth.Counts
}

// generate writes a stream of at least size bytes to path: the recordings
// and generated sessions, over again. One pass of the recordings is
// replayed first to count its tool calls.
func generate(r replayer, dir string, size int64, recs [][]byte) (stream, error) {
	one := filepath.Join(dir, "recordings.ndjson")
	if err := os.WriteFile(one, bytes.Join(recs, nil), 0o644); err != nil {
		return stream{}, err
	}
	_, sessions, tools, err := r.replay(one, true)
	if err != nil {
		return stream{}, err
	}
	pass := synth.Counts{Sessions: sessions, ToolCalls: tools}
	for _, b := range recs {
		pass.Bytes += int64(len(b))
		pass.Lines += bytes.Count(b, []byte{'\n'})
	}

	path := filepath.Join(dir, fmt.Sprintf("stream-%dMB.ndjson", size>>20))
	f, err := os.Create(path)
	if err != nil {
		return stream{}, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	counts, err := synth.Mix(w, size, recs, pass)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return stream{path: path, counts: counts}, err
}
