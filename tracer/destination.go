package tracer

import (
	"strings"

	"github.com/cursor-otel/cursor-otel/internal/spool"
)

// Destination is where the settings send spans, as the spool tells
// destinations apart: the traces endpoint and protocol, shown without
// credentials; the endpoint as written, the headers and the client
// certificate, which tell one tenant from another on the same address,
// only ever digested. ok is false when nothing goes over OTLP.
func Destination(getenv func(string) string) (to spool.Destination, ok bool) {
	s, problems := readSettings(getenv)
	if len(problems) > 0 || s.traces.protocol == "" {
		return to, false
	}
	return s.traces.destination(getenv), true
}

func (s signal) destination(getenv func(string) string) spool.Destination {
	endpoint := s.endpoint
	if !strings.Contains(endpoint, "://") {
		endpoint = "http://" + endpoint // the default: plaintext
	}
	shown := endpoint
	if u := userinfo(endpoint); u != "" {
		shown = strings.Replace(endpoint, u+"@", "", 1)
	}
	var secret strings.Builder
	secret.WriteString(s.endpoint)
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS",
		"OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE", "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"} {
		secret.WriteString("\x00" + strings.TrimSpace(getenv(name)))
	}
	return spool.Destination{Address: shown + " (" + s.protocol + ")", Secret: secret.String()}
}
