package tracer

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
)

// The OTLP/gRPC exporters left to themselves make their connection at
// their first export: in a wrapped run, at the agent's exit, where its
// handshake (and, to a remote collector, the TLS one) is time the user
// waits. So cursor-otel dials the collector itself, as the exporters
// would from the same variables, and starts connecting at once: the
// connection is made while the agent runs. Traces and metrics going to
// the same collector the same way share it.

// dialing is how one signal's OTLP/gRPC exporter reaches its collector,
// read from the variables as the exporter reads them (its own package,
// internal/otlpconfig): the endpoint URL's host and path, plaintext for
// an http URL, TLS otherwise, OTEL_EXPORTER_OTLP_[SIGNAL_]INSECURE over
// the scheme, a certificate or client certificate meaning TLS with them
// whatever else is set, and gzip when COMPRESSION says so. The signal's
// own variable wins over the shared one.
type dialing struct {
	target                    string
	insecure                  bool
	ca, clientCert, clientKey string // files; "" for none
	gzip                      bool
}

// dialingFor is how sig, the signal named name (TRACES, METRICS), is
// dialed, read with getenv as the exporters read the process's
// environment. ok is false for an endpoint cursor-otel leaves the
// exporter to dial (a unix socket).
func dialingFor(getenv func(string) string, sig signal, name string) (d dialing, ok bool) {
	get := func(key string) string {
		if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + name + "_" + key)); v != "" {
			return v
		}
		return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + key))
	}
	if !sig.userEndpoint {
		// The default endpoint, which New names with WithEndpoint and
		// WithInsecure, over what the variables say.
		d.target, d.insecure = sig.endpoint, true
	} else {
		u, err := url.Parse(sig.endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return dialing{}, false
		}
		d.target, d.insecure = path.Join(u.Host, u.Path), u.Scheme == "http"
		for _, key := range []string{"OTEL_EXPORTER_OTLP_INSECURE", "OTEL_EXPORTER_OTLP_" + name + "_INSECURE"} {
			if v := strings.TrimSpace(getenv(key)); v != "" {
				d.insecure = strings.EqualFold(v, "true")
			}
		}
	}
	d.ca = get("CERTIFICATE")
	for _, prefix := range []string{"OTEL_EXPORTER_OTLP_", "OTEL_EXPORTER_OTLP_" + name + "_"} {
		cert, key := strings.TrimSpace(getenv(prefix+"CLIENT_CERTIFICATE")), strings.TrimSpace(getenv(prefix+"CLIENT_KEY"))
		if cert != "" && key != "" {
			d.clientCert, d.clientKey = cert, key
		}
	}
	d.gzip = get("COMPRESSION") == "gzip"
	return d, true
}

// dial makes the connection and starts connecting; userAgent is the
// exporter's own.
func (d dialing) dial(userAgent string) (*grpc.ClientConn, error) {
	creds, err := d.credentials()
	if err != nil {
		return nil, err
	}
	opts := []grpc.DialOption{grpc.WithUserAgent(userAgent), grpc.WithTransportCredentials(creds), grpc.WithConnectParams(reconnect())}
	if d.gzip {
		opts = append(opts, grpc.WithDefaultCallOptions(grpc.UseCompressor(gzip.Name)))
	}
	conn, err := grpc.NewClient(d.target, opts...)
	if err != nil {
		return nil, err
	}
	conn.Connect()
	return conn, nil
}

func (d dialing) credentials() (credentials.TransportCredentials, error) {
	if d.ca == "" && d.clientCert == "" {
		if d.insecure {
			return insecure.NewCredentials(), nil
		}
		return credentials.NewTLS(nil), nil // the system's roots
	}
	conf := &tls.Config{}
	if d.ca != "" {
		b, err := os.ReadFile(d.ca)
		if err != nil {
			return nil, err
		}
		conf.RootCAs = x509.NewCertPool()
		if !conf.RootCAs.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("%s holds no PEM certificate", d.ca)
		}
	}
	if d.clientCert != "" {
		c, err := tls.LoadX509KeyPair(d.clientCert, d.clientKey)
		if err != nil {
			return nil, err
		}
		conf.Certificates = []tls.Certificate{c}
	}
	return credentials.NewTLS(conf), nil
}

// traceUserAgent is the OTLP/gRPC trace exporter's user agent, which a
// connection cursor-otel dials for it keeps.
var traceUserAgent = "OTel OTLP Exporter Go/" + otlptrace.Version()

// conns are the connections a Provider dialed, by how they were dialed.
type conns map[dialing]*grpc.ClientConn

// get is the connection dialed d, dialing it if it is not yet.
func (c conns) get(d dialing, userAgent string) (*grpc.ClientConn, error) {
	if conn, ok := c[d]; ok {
		return conn, nil
	}
	conn, err := d.dial(userAgent)
	if err != nil {
		return nil, err
	}
	c[d] = conn
	return conn, nil
}

// close closes every connection.
func (c conns) close() error {
	var errs []error
	for _, conn := range c {
		errs = append(errs, conn.Close())
	}
	return errors.Join(errs...)
}
