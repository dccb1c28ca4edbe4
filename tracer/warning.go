package tracer

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Warning is the one line to print when spans did not reach the collector,
// or "" when they all did. It says where they went, why they did not
// arrive in words a user acts on, and how many: spans sent whose answer
// did not come within the flush timeout may well have arrived, and are
// counted apart.
func (r ExportReport) Warning() string {
	spans := r.spanWarning()
	switch {
	// Metrics to the default endpoint go unsaid: the collector usually
	// there (Jaeger) takes none, and the spans say whether it is there.
	case r.MetricsErr == nil || !r.MetricsUserEndpoint:
		return spans
	case spans != "":
		if i := strings.Index(spans, ". Start Jaeger"); i >= 0 {
			return spans[:i] + "; metrics not exported either" + spans[i:]
		}
		return spans + "; metrics not exported either"
	}
	return fmt.Sprintf("cursor-otel: metrics export to %s failed: %s", r.MetricsEndpoint, Reason(r.MetricsErr))
}

// spanWarning is the warning about the spans alone.
func (r ExportReport) spanWarning() string {
	if r.Lost() == 0 {
		return ""
	}
	late := fmt.Sprintf("no answer within the %s flush timeout", r.FlushTimeout)
	var count string
	switch notSent := r.Lost() - r.Unconfirmed - r.Handed; {
	case r.Handed > 0 && notSent == 0 && r.Unconfirmed == 0:
		count = fmt.Sprintf("%s for %d of %d spans: handed to the background delivery, which waits for the answer", late, r.Handed, r.Spans)
		if r.SpoolDir != "" {
			count += fmt.Sprintf(" (kept in %s until the collector takes them)", r.SpoolDir)
		}
		return r.withEndpoint(count)
	case r.Handed > 0:
		count = fmt.Sprintf("%d of %d spans not exported, %s for %d more, handed to the background delivery", notSent+r.Unconfirmed, r.Spans, late, r.Handed)
	case notSent == 0:
		count = fmt.Sprintf("%s for %d of %d spans (they may have arrived)", late, r.Unconfirmed, r.Spans)
	case r.Unconfirmed > 0:
		count = fmt.Sprintf("%d of %d spans not exported, %s for %d more", notSent, r.Spans, late, r.Unconfirmed)
	default:
		count = fmt.Sprintf("%d of %d spans not exported", r.Lost(), r.Spans)
	}
	count += r.keptNote()
	return r.withEndpoint(count)
}

// withEndpoint is the warning's line: where the spans went, why they did
// not arrive, and count.
func (r ExportReport) withEndpoint(count string) string {
	switch {
	case !r.UserEndpoint && r.Err != nil:
		return fmt.Sprintf("cursor-otel: no collector reached at %s (%s); %s. Start Jaeger with: docker compose up -d", r.Endpoint, Reason(r.Err), count)
	case !r.UserEndpoint:
		return fmt.Sprintf("cursor-otel: collector at %s: %s", r.Endpoint, count)
	case r.Err != nil:
		return fmt.Sprintf("cursor-otel: export to %s failed: %s; %s", r.Endpoint, Reason(r.Err), count)
	}
	return fmt.Sprintf("cursor-otel: export to %s: %s", r.Endpoint, count)
}

// keptNote says what the spool kept of the spans not exported, and where
// they wait, or how to send them again when nothing kept them: "" when
// there is no spool and nothing to say.
func (r ExportReport) keptNote() string {
	var note string
	switch {
	case r.Kept.Spans == 0 && r.Again != "":
		note = ", not kept: " + r.Again
	case r.SpoolDir == "":
		return ""
	case r.Kept.Spans > 0:
		note = fmt.Sprintf(", kept in %s for the next run (or cursor-otel flush)", r.SpoolDir)
		if r.Kept.Spans < r.Lost() {
			note = fmt.Sprintf(", %d of them kept in %s for the next run (or cursor-otel flush)", r.Kept.Spans, r.SpoolDir)
		}
	}
	if r.Kept.TooLarge > 0 {
		note += fmt.Sprintf(", %s (%d spans) dropped: larger than the spool's bound (CURSOR_OTEL_SPOOL_MAX) by itself, not kept",
			sessions(r.Kept.TooLarge), r.Kept.TooLargeSpans)
	}
	if r.Kept.Dropped > 0 {
		note += fmt.Sprintf(", %s dropped to keep the spool within its bound", olderSessions(r.Kept.Dropped))
	}
	if r.KeepErr != nil {
		note += fmt.Sprintf(", not kept: %v", r.KeepErr)
	}
	return note
}

func sessions(n int) string {
	if n == 1 {
		return "1 session"
	}
	return fmt.Sprintf("%d sessions", n)
}

func olderSessions(n int) string {
	if n == 1 {
		return "1 older session"
	}
	return fmt.Sprintf("%d older sessions", n)
}

// causes are what an export error says, as found in its text, and what to
// tell the user instead: the first that matches wins.
var causes = []struct{ find, say string }{
	{"certificate signed by unknown authority", "the collector's TLS certificate is signed by an unknown authority; set OTEL_EXPORTER_OTLP_CERTIFICATE to its CA's PEM file"},
	{"certificate is valid for", "the collector's TLS certificate is for another host name"},
	{"certificate has expired", "the collector's TLS certificate has expired"},
	{"first record does not look like a TLS handshake", "the collector does not speak TLS: use http:// for plaintext"},
	{"server gave HTTP response to HTTPS client", "the collector does not speak TLS: use http:// for plaintext"},
	{"tls: certificate required", "the collector wants a client certificate: set OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY"},
	{"bad certificate", "the collector refused the client certificate"},
	{"malformed HTTP response", "the collector answered in gRPC, not HTTP: set OTEL_EXPORTER_OTLP_PROTOCOL=grpc, or use its HTTP port (4318)"},
	{"readLoopPeekFailLocked", "the collector closed the connection without an HTTP answer: if it speaks gRPC on this port, set OTEL_EXPORTER_OTLP_PROTOCOL=grpc, or use its HTTP port (4318)"},
	{"server preface", "the collector answered in HTTP/1, not gRPC: set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf, or use its gRPC port (4317)"},
	{"frame too large", "the collector answered in HTTP/1, not gRPC: set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf, or use its gRPC port (4317)"},
	{"connection refused", "connection refused"},
	{"no such host", "no such host"},
	{"network is unreachable", "network is unreachable"},
	{"i/o timeout", "no answer"},
	{"context deadline exceeded", "no answer"},
	{"DeadlineExceeded", "no answer"},
}

// Reason keeps an export error to what a person acts on: a known cause in
// plain words, else the gRPC status code and its message, else the
// message, on one line and short.
func Reason(err error) string {
	msg := err.Error()
	for _, c := range causes {
		if strings.Contains(msg, c.find) {
			return c.say
		}
	}
	if errors.Is(err, ErrFlushTimeout) {
		return "flush timed out"
	}
	// The innermost status: the outer ones wrap its text in their own.
	code := ""
	for e := err; e != nil; e = errors.Unwrap(e) {
		if st, ok := status.FromError(e); ok && st.Code() != codes.OK && st.Code() != codes.Unknown {
			code, msg = st.Code().String(), st.Message()
		}
	}
	if _, desc, ok := strings.Cut(msg, "rpc error: code = "+code+" desc = "); ok {
		msg = desc // a status wrapped in another's text
	}
	msg = strings.Trim(strings.Join(strings.Fields(msg), " "), `"`)
	if r := []rune(msg); len(r) > 160 {
		msg = string(r[:157]) + "..."
	}
	if code != "" && msg != "" {
		return code + ": " + msg
	}
	return code + msg
}
