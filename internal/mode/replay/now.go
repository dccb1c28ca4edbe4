package replay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cursor-otel/cursor-otel/parse"
)

// toPresent is the shift that moves the recordings so that the latest
// time they give is now: each session keeps its durations and its place
// among the others. A recording read from stdin is kept in memory, as it
// is read twice; buffered is it then, else nil.
func toPresent(ctx context.Context, files []string, stdin io.Reader, now time.Time) (shift time.Duration, buffered []byte, err error) {
	var latest time.Time
	for _, name := range files {
		var r io.Reader
		if name == "-" {
			if buffered, err = io.ReadAll(stdin); err != nil {
				return 0, nil, fmt.Errorf("replay: %w", err)
			}
			r = bytes.NewReader(buffered)
		} else {
			f, err := os.Open(name)
			if err != nil {
				return 0, nil, fmt.Errorf("replay: %w", err)
			}
			defer f.Close()
			r = f
		}
		for batch := range parse.DecodeAhead(ctx, r, parse.WithoutContent()) {
			for _, ev := range batch.Events {
				latest = later(latest, ev.Head().Time)
				if e, ok := ev.(*parse.ToolCompleted); ok {
					latest = later(latest, e.Call.CompletedAt)
				}
			}
		}
	}
	if latest.IsZero() {
		return 0, buffered, nil // no times: replay places the sessions now already
	}
	return now.Sub(latest), buffered, nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
