package tracer

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/cursor-otel/cursor-otel/internal/spool"
)

// Destination is where the settings send spans, as the spool tells
// destinations apart: the request the OTLP exporter would make, in one
// canonical form (see canonicalEndpoint, canonicalHeaders), and the client
// certificate's identity. ok is false when nothing goes over OTLP.
func Destination(getenv func(string) string) (to spool.Destination, ok bool) {
	s, problems := readSettings(getenv)
	if len(problems) > 0 || s.traces.protocol == "" {
		return to, false
	}
	return s.traces.destination(getenv), true
}

func (s signal) destination(getenv func(string) string) spool.Destination {
	return spool.Destination{
		Address:     s.canonicalEndpoint(getenv),
		Protocol:    s.protocol,
		Headers:     canonicalHeaders(getenv, s.protocol),
		Certificate: clientCertificate(getenv),
		Earlier:     s.earlierDestination(getenv),
	}
}

// canonicalEndpoint is the URL the exporter sends to, as the OTLP
// exporters resolve the variables (their internal/otlpconfig): the
// default when none is set; plaintext for http:// (or INSECURE=true) and,
// over gRPC, TLS whenever a certificate is given; scheme and host in
// lower case; the port the connection goes to when none is written (80
// or 443 over HTTP, 443 over gRPC); the path as the exporter completes
// it: over gRPC joined to the host and cleaned (a trailing slash goes),
// over HTTP the shared variable's path joined with /v1/traces, the
// signal's own variable's as written, / when empty. No user, password,
// query or fragment: the exporters send none of them.
func (s signal) canonicalEndpoint(getenv func(string) string) string {
	grpc := s.protocol == "grpc"
	if !s.userEndpoint {
		if grpc {
			return "http://" + defaultGRPCEndpoint
		}
		return "http://" + defaultHTTPEndpoint + "/v1/traces"
	}
	u, err := url.Parse(s.endpoint)
	if err != nil {
		return "unreadable endpoint"
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme == "unix" {
		return "unix://" + path.Join(u.Host, u.Path)
	}
	insecure := scheme == "http"
	for _, key := range []string{"OTEL_EXPORTER_OTLP_INSECURE", "OTEL_EXPORTER_OTLP_TRACES_INSECURE"} {
		if v := strings.TrimSpace(getenv(key)); v != "" {
			insecure = strings.EqualFold(v, "true")
		}
	}
	if grpc {
		if d, ok := dialingFor(getenv, s, "TRACES"); ok && (d.ca != "" || d.clientCert != "") {
			insecure = false // cursor-otel's own connection: TLS with them
		}
	}
	scheme = "https"
	if insecure {
		scheme = "http"
	}
	port := u.Port()
	if port == "" {
		port = "443"
		if insecure && !grpc {
			port = "80"
		}
	}
	out := scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
	switch {
	case grpc:
		if p := path.Join("/", u.Path); p != "/" {
			out += p
		}
	case s.perSignal:
		out += cmpOr(strings.TrimSpace(u.Path), "/")
	default:
		out += path.Join(u.Path, "/v1/traces")
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// canonicalHeaders are the headers the exporter sends, read as it reads
// them: the signal's own variable instead of the shared one when set;
// key=value pairs, the value percent-decoded then trimmed, a name
// trimmed; a name that is no HTTP token skipped, as the exporter skips
// it; the last of one name wins. Names in lower case (HTTP and gRPC
// metadata take them in any case); values of names differing in case
// alone kept together, sorted (over HTTP, equal ones are one). Headers the protocol sets itself, over
// what the user gives, are left out: they are not what the user's
// differ in.
func canonicalHeaders(getenv func(string) string, protocol string) map[string]string {
	v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS"))
	if v == "" {
		v = strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_HEADERS"))
	}
	if v == "" {
		return nil
	}
	exact := map[string]string{}
	for _, pair := range strings.Split(v, ",") {
		name, value, ok := strings.Cut(pair, "=")
		name = strings.TrimSpace(name)
		if !ok || !isToken(name) {
			continue
		}
		decoded, err := url.PathUnescape(value)
		if err != nil {
			continue
		}
		exact[name] = strings.TrimSpace(decoded)
	}
	byName := map[string][]string{}
	for name, value := range exact {
		lower := strings.ToLower(name)
		if slices.Contains(setByProtocol[protocol], lower) {
			continue
		}
		byName[lower] = append(byName[lower], value)
	}
	out := map[string]string{}
	for name, values := range byName {
		slices.Sort(values)
		if protocol == "http/protobuf" {
			// HTTP sets one header per name: equal values are one.
			values = slices.Compact(values)
		}
		out[name] = strings.Join(values, "\x00")
	}
	return out
}

// setByProtocol are the headers each exporter sets over the user's, or
// its transport drops.
var setByProtocol = map[string][]string{
	"grpc":          {"content-type", "user-agent", "te", "grpc-message-type", "grpc-encoding", "grpc-message", "grpc-status", "grpc-timeout"},
	"http/protobuf": {"content-type", "host", "content-length", "transfer-encoding"},
}

// isToken says whether name is an HTTP token, as the exporter checks a
// header's name.
func isToken(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.ContainsRune("!#$%&'*+-.^_`|~", c):
		default:
			return false
		}
	}
	return true
}

// clientCertificate is the identity of the client certificate the
// exporter presents, "" for none: the signal's own pair over the shared
// one, each only with both its certificate and key set; who its leaf
// certificate says it is (subject and issuer), so that the same
// certificate at another path, or renewed, is the same, and another
// one's is another.
func clientCertificate(getenv func(string) string) string {
	var cert, key string
	for _, prefix := range []string{"OTEL_EXPORTER_OTLP_", "OTEL_EXPORTER_OTLP_TRACES_"} {
		c, k := strings.TrimSpace(getenv(prefix+"CLIENT_CERTIFICATE")), strings.TrimSpace(getenv(prefix+"CLIENT_KEY"))
		if c != "" && k != "" {
			cert, key = c, k
		}
	}
	if cert == "" {
		return ""
	}
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil || len(pair.Certificate) == 0 {
		return "unreadable " + cert
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return "unreadable " + cert
	}
	return "subject " + leaf.Subject.String() + "\x00issuer " + leaf.Issuer.String()
}

// earlierDestination is what cursor-otel digested for these settings
// before destinations were canonical (the endpoint as written, the raw
// header and client certificate variables): parts kept then are matched
// by it still.
func (s signal) earlierDestination(getenv func(string) string) *spool.Earlier {
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
	return &spool.Earlier{Address: shown + " (" + s.protocol + ")", Secret: secret.String()}
}
