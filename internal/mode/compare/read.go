package compare

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cursor-otel/cursor-otel/internal/summary"
	"github.com/cursor-otel/cursor-otel/parse"
	"github.com/cursor-otel/cursor-otel/spanmap"
)

// readRuns reads the runs a file holds: a --summary-json file (one report
// per line, as many runs as it has), or a stream-json recording, turned
// into reports as replay would, through the span model, so that both
// give the same figures.
func readRuns(path string, opts spanmap.Options) ([]summary.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if reports, ok, err := readSummaries(data); ok {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return reports, nil
	}
	reports, err := replayed(data, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(reports) == 0 {
		return nil, fmt.Errorf("%s: neither a --summary-json file nor a recording with a session in it", path)
	}
	return reports, nil
}

// readSummaries reads a --summary-json file; ok is false when the data is
// not one (its first line is no report).
func readSummaries(data []byte) (reports []summary.Report, ok bool, err error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var probe struct {
			TraceID    *string         `json:"trace_id"`
			WallMs     *int64          `json:"wall_ms"`
			SessionEnd json.RawMessage `json:"session_end"`
		}
		err := json.Unmarshal(line, &probe)
		if err == nil && probe.SessionEnd != nil {
			continue // a conversation's end (hooks): no run
		}
		if err != nil || probe.TraceID == nil || probe.WallMs == nil {
			if len(reports) == 0 {
				return nil, false, nil
			}
			return nil, true, fmt.Errorf("line %d is not a run's report", n)
		}
		var r summary.Report
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, true, fmt.Errorf("line %d: %w", n, err)
		}
		reports = append(reports, r)
	}
	return reports, len(reports) > 0, sc.Err()
}

// replayed turns a recording into the reports of its sessions.
func replayed(data []byte, opts spanmap.Options) ([]summary.Report, error) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(spanmap.NewIDGenerator()), sdktrace.WithSyncer(exp))
	opts.Now = time.Now
	rec := spanmap.NewStream(context.Background(), tp.Tracer("compare"), opts)
	dec := parse.NewDecoder(bytes.NewReader(data), parse.WithoutContent())
	events := 0 // that cursor-agent prints: a file of anything else is no recording
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch ev.(type) {
		case *parse.Unknown, *parse.Invalid, *parse.Blank:
		default:
			events++
		}
		rec.Record(ev, time.Time{})
	}
	if events == 0 {
		return nil, nil
	}
	rec.Finish(spanmap.End{})
	var reports []summary.Report
	for _, spans := range summary.Traces(exp.GetSpans().Snapshots()) {
		if r, ok := summary.FromTrace(spans); ok {
			reports = append(reports, r)
		}
	}
	return reports, nil
}
