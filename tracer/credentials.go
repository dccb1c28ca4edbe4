package tracer

import (
	"net/url"
	"strings"
)

// Credentials returns the secrets the exporter is given to reach its
// collector, for masking wherever they appear (a captured printenv, a
// warning naming the endpoint): each header value of
// OTEL_EXPORTER_OTLP_HEADERS and OTEL_EXPORTER_OTLP_TRACES_HEADERS, as
// written and decoded, and the token after a scheme (Bearer, Basic); the
// password in an endpoint URL, or its user when that is all it has. Values are
// read leniently: a malformed setting still holds secrets.
func Credentials(getenv func(string) string) []string {
	var out []string
	add := func(v string) {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	for _, key := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS"} {
		for _, pair := range strings.Split(getenv(key), ",") {
			_, v, ok := strings.Cut(pair, "=")
			if !ok {
				continue
			}
			values := []string{v}
			if d, err := url.PathUnescape(v); err == nil && d != v {
				values = append(values, d)
			}
			for _, v := range values {
				add(v)
				if _, token, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
					add(token)
				}
			}
		}
	}
	for _, key := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"} {
		userinfo := userinfo(getenv(key))
		if userinfo == "" {
			continue
		}
		// The password; a user alone (https://TOKEN@host) is a token.
		secret := userinfo
		if _, password, ok := strings.Cut(userinfo, ":"); ok {
			secret = password
		}
		add(secret)
		if d, err := url.PathUnescape(secret); err == nil && d != secret {
			add(d)
		}
	}
	return out
}

// userinfo is the user:password part of a URL, as written, found without
// parsing the whole URL so that a malformed one still gives it up.
func userinfo(endpoint string) string {
	_, rest, ok := strings.Cut(endpoint, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	return rest[:at]
}
