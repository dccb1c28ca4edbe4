package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cursor-otel/cursor-otel/internal/oneline"
	"github.com/cursor-otel/cursor-otel/parse"
)

// An input that holds no line of cursor-agent's stream (an empty file,
// a Markdown page, a report) is no session: replaying it would make and
// send a session of unreadable lines. Each input is read up to its first
// line of the stream before anything is set up, and those with none are
// said and left out.

// maxStdinLook is how much of stdin is held in memory while looking for
// its first line of the stream; past it, stdin is taken to hold one.
const maxStdinLook = 64 << 20

// errNoStream says an input holds no line of cursor-agent's stream.
var errNoStream = errors.New("no line of cursor-agent's stream-json in it")

// withStreams is files less those that hold no line of the stream, each
// said in errs, and stdin to read from then on (what was read of it
// while looking, and the rest).
func withStreams(files []string, stdin io.Reader) (kept []string, rest io.Reader, errs []error) {
	rest = stdin
	for _, name := range files {
		var err error
		if name == "-" {
			rest, err = stdinHoldsStream(rest)
		} else {
			err = fileHoldsStream(name)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		kept = append(kept, name)
	}
	return kept, rest, errs
}

// fileHoldsStream says why the file name holds no line of the stream;
// nil when it holds one. (A file that cannot be opened is left for the
// replay to say so.)
func fileHoldsStream(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	found, lines, err := firstStreamLine(f)
	if err != nil || found {
		return nil
	}
	return noStream(name, lines)
}

// stdinHoldsStream looks for stdin's first line of the stream, and
// returns stdin to read from then on: what it read, then the rest.
func stdinHoldsStream(stdin io.Reader) (io.Reader, error) {
	var read bytes.Buffer
	found, lines, err := firstStreamLine(io.TeeReader(io.LimitReader(stdin, maxStdinLook), &read))
	again := io.MultiReader(bytes.NewReader(read.Bytes()), stdin)
	if err != nil || found || read.Len() >= maxStdinLook {
		return again, nil
	}
	return again, noStream("stdin", lines)
}

// noStream is the error of an input with no line of the stream in its
// lines.
func noStream(name string, lines int) error {
	if lines == 0 {
		return fmt.Errorf("replay %s: empty: nothing replayed", name)
	}
	return fmt.Errorf("replay %s: %w (%s): nothing replayed; a recording is what cursor-agent --output-format stream-json prints",
		name, errNoStream, oneline.Count(lines, "line"))
}

// firstStreamLine reads r up to its first line of the stream, and says
// whether there is one and how many lines (not blank) it read.
func firstStreamLine(r io.Reader) (found bool, lines int, err error) {
	d := parse.NewDecoder(r, parse.WithoutContent())
	for {
		ev, err := d.Next()
		if err == io.EOF {
			return false, lines, nil
		}
		if err != nil {
			return false, lines, err
		}
		lines++
		if ofStream(ev) {
			return true, lines, nil
		}
	}
}

// ofStream says an event is a line of the stream: a JSON object with a
// type, known or not (a report's JSON lines, say, have none).
func ofStream(ev parse.Event) bool {
	switch ev.(type) {
	case *parse.Invalid, *parse.Blank:
		return false
	case *parse.Unknown:
		return ev.Head().Type != ""
	}
	return true
}
