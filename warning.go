package main

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cursor-otel/cursor-otel/tracer"
)

// exportWarning is the one line cursor-otel prints when spans did not
// reach the collector, or "" when they all did.
func exportWarning(r tracer.Report) string {
	if r.Err == nil || r.Lost() == 0 {
		return ""
	}
	spans := fmt.Sprintf("%d of %d spans not exported", r.Lost(), r.Spans)
	if !r.UserEndpoint {
		return fmt.Sprintf("cursor-otel: no collector reached at %s (%s); %s. Start Jaeger with: docker compose up -d",
			r.Endpoint, shortReason(r.Err), spans)
	}
	return fmt.Sprintf("cursor-otel: export to %s failed: %s; %s", r.Endpoint, shortReason(r.Err), spans)
}

// oneLine joins what cursor-otel has to say into its one line on stderr,
// or "" when it has nothing to say.
func oneLine(notes ...string) string {
	var kept []string
	for _, n := range notes {
		if n = strings.TrimPrefix(n, "cursor-otel: "); n != "" {
			kept = append(kept, n)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	return "cursor-otel: " + strings.Join(kept, "; ")
}

// size says a number of bytes the way a person reads it.
func size(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d bytes", n)
}

// shortReason keeps an export error to what a person acts on: the gRPC
// status code and the innermost cause ("Unavailable: connection refused").
func shortReason(err error) string {
	msg := err.Error()
	code := ""
	for e := err; e != nil; e = errors.Unwrap(e) {
		if st, ok := status.FromError(e); ok && st.Code() != codes.OK && st.Code() != codes.Unknown {
			code, msg = st.Code().String(), st.Message()
			break
		}
	}
	// gRPC errors nest their cause: `code = Unavailable desc = connection
	// error: desc = "transport: ... dial tcp 127.0.0.1:4317: connect:
	// connection refused"`; the last clause of the last desc is the cause.
	if i := strings.LastIndex(msg, "desc = "); i >= 0 {
		msg = msg[i+len("desc = "):]
		if j := strings.LastIndex(msg, ": "); j >= 0 {
			msg = msg[j+2:]
		}
	}
	msg = strings.Trim(strings.Join(strings.Fields(msg), " "), `"`)
	if len(msg) > 120 {
		msg = msg[:117] + "..."
	}
	if code != "" {
		return code + ": " + msg
	}
	return msg
}
