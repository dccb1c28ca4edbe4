package tracer

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// settings are the standard OTEL_* variables as cursor-otel reads them;
// the rest (headers, TLS files, compression, timeout) the OTLP exporters
// read themselves, once readSettings has checked them.
type settings struct {
	traces, metrics signal
	sampler         sdktrace.Sampler
}

// signal is where one signal (traces, metrics) is exported.
type signal struct {
	exporters    []string // otlp, console
	protocol     string   // grpc or http/protobuf
	endpoint     string   // as the user wrote it, or the default
	userEndpoint bool
	// perSignal: the endpoint is the signal's own variable's
	// (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), which OTLP/HTTP takes as the
	// whole URL, where it completes the shared one with /v1/traces.
	perSignal bool
}

// Default endpoints: plaintext, on this machine, as the contract says, so
// that a local Jaeger works with no settings at all.
const (
	defaultGRPCEndpoint = "localhost:4317"
	defaultHTTPEndpoint = "localhost:4318"
)

// CheckEnv says what is wrong with the standard OTEL_* variables, one
// error each, in words that say what to write; nil when nothing is. A
// value the OpenTelemetry libraries would ignore, or read as something
// else, is wrong here: a run is never exported with a setting silently
// dropped.
func CheckEnv(getenv func(string) string) []error {
	_, problems := readSettings(getenv)
	return problems
}

func readSettings(getenv func(string) string) (settings, []error) {
	var s settings
	var problems []error
	bad := func(format string, args ...any) { problems = append(problems, fmt.Errorf(format, args...)) }

	disabled := false
	if v := strings.TrimSpace(getenv("OTEL_SDK_DISABLED")); v != "" {
		switch strings.ToLower(v) {
		case "true":
			disabled = true
		case "false":
		default:
			bad("OTEL_SDK_DISABLED=%q: write true or false", v)
		}
	}
	s.sampler, problems = readSampler(getenv, problems)
	problems = checkLimits(getenv, problems)

	if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE")); v != "" {
		switch strings.ToLower(v) {
		case "cumulative", "delta", "lowmemory":
		default:
			bad("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=%q: write cumulative, delta or lowmemory", v)
		}
	}
	s.traces = readSignal(getenv, "TRACES", disabled, bad)
	s.metrics = readSignal(getenv, "METRICS", disabled, bad)
	problems = checkOTLP(getenv, problems)
	// A shared setting read for both signals is said once.
	var said []string
	return s, slices.DeleteFunc(problems, func(e error) bool {
		if slices.Contains(said, e.Error()) {
			return true
		}
		said = append(said, e.Error())
		return false
	})
}

// readSignal reads where one signal goes: OTEL_{TRACES,METRICS}_EXPORTER,
// and for OTLP the signal's own protocol and endpoint, else the shared ones.
func readSignal(getenv func(string) string, name string, disabled bool, bad func(string, ...any)) signal {
	var s signal
	exporterVar := "OTEL_" + name + "_EXPORTER"
	list := strings.TrimSpace(getenv(exporterVar))
	if list == "" {
		list = "otlp"
	}
	none := false
	for _, e := range strings.Split(list, ",") {
		switch e = strings.ToLower(strings.TrimSpace(e)); e {
		case "otlp", "console":
			if !slices.Contains(s.exporters, e) {
				s.exporters = append(s.exporters, e)
			}
		case "none":
			none = true
		case "":
		default:
			bad("%s=%q: unknown exporter %q; write otlp, console or none", exporterVar, list, e)
		}
	}
	if disabled || none {
		s.exporters = nil
	}
	if !slices.Contains(s.exporters, "otlp") {
		return s
	}
	protocolVar := firstSet(getenv, "OTEL_EXPORTER_OTLP_"+name+"_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
	switch s.protocol = strings.TrimSpace(getenv(protocolVar)); s.protocol {
	case "":
		s.protocol = "grpc"
	case "grpc", "http/protobuf":
	default:
		bad("%s=%q is not supported: write grpc or http/protobuf", protocolVar, s.protocol)
		s.protocol = "grpc"
	}
	if v := firstSet(getenv, "OTEL_EXPORTER_OTLP_"+name+"_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"); v != "" {
		s.endpoint, s.userEndpoint = strings.TrimSpace(getenv(v)), true
		s.perSignal = v != "OTEL_EXPORTER_OTLP_ENDPOINT"
		if err := checkEndpoint(s.endpoint); err != nil {
			bad("%s: %v", v, err)
		}
	} else if s.protocol == "grpc" {
		s.endpoint = defaultGRPCEndpoint
	} else {
		s.endpoint = defaultHTTPEndpoint
	}
	return s
}

// checkEndpoint wants a URL, as the specification does: a bare host:port
// would be TLS for one host name and unreadable for an IP address.
func checkEndpoint(e string) error {
	u, err := url.Parse(e)
	hasScheme := strings.Contains(e, "://")
	switch {
	case !hasScheme && schemeCut(e) != "":
		// http//host:4317, https:/host: a scheme whose :// was mistyped.
		rest := schemeCut(e)
		return fmt.Errorf("%q is missing :// after the scheme: write http://%s for plaintext or https://%s for TLS", e, rest, rest)
	case !hasScheme:
		return fmt.Errorf("%q is not a URL: write http://%s for plaintext or https://%s for TLS",
			e, strings.TrimPrefix(e, "//"), strings.TrimPrefix(e, "//"))
	case err != nil:
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("%q is not a URL (%v): write it as http://host:port or https://host:port", e, err)
	case u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "unix":
		return fmt.Errorf("%q: the scheme must be http (plaintext) or https (TLS)", e)
	case u.Host == "" && u.Scheme != "unix":
		return fmt.Errorf("%q names no host: write it as http://host:port or https://host:port", e)
	}
	return nil
}

// schemeCut is what follows a mistyped http or https scheme at the start
// of e (http//, http:/, https:, http;//, …), "" when e does not start so.
func schemeCut(e string) string {
	for _, scheme := range []string{"https", "http"} {
		// Compared in place: lower-casing e would change its length
		// where it is not UTF-8.
		if len(e) < len(scheme) || !strings.EqualFold(e[:len(scheme)], scheme) {
			continue
		}
		rest := e[len(scheme):]
		sep := len(rest) - len(strings.TrimLeft(rest, ":;/"))
		if sep == 0 {
			return "" // httpbin:4317 is a host
		}
		if host := rest[sep:]; host != "" {
			return host
		}
	}
	return ""
}

// checkOTLP checks what the OTLP exporters read themselves, for traces and
// for every signal: they would skip a malformed value, or fail an export
// with it, without saying so.
func checkOTLP(getenv func(string) string, problems []error) []error {
	bad := func(format string, args ...any) { problems = append(problems, fmt.Errorf(format, args...)) }
	for _, signal := range []string{"OTEL_EXPORTER_OTLP_TRACES_", "OTEL_EXPORTER_OTLP_METRICS_", "OTEL_EXPORTER_OTLP_"} {
		if v := getenv(signal + "HEADERS"); v != "" {
			if _, err := ParseKeyValues(v); err != nil {
				bad("%sHEADERS: %v; write key=value pairs separated by commas, values URL-encoded (authorization=Bearer%%20…)", signal, err)
			}
		}
		if v := strings.TrimSpace(getenv(signal + "TIMEOUT")); v != "" {
			if n, err := strconv.Atoi(v); err != nil || n < 0 {
				bad("%sTIMEOUT=%q: write a number of milliseconds, e.g. 10000", signal, v)
			}
		}
		if v := strings.TrimSpace(getenv(signal + "COMPRESSION")); v != "" && v != "gzip" && v != "none" {
			bad("%sCOMPRESSION=%q: write gzip or none", signal, v)
		}
		if v := getenv(signal + "CERTIFICATE"); v != "" {
			if err := checkCertificate(v); err != nil {
				bad("%sCERTIFICATE: %v", signal, err)
			}
		}
		cert, key := getenv(signal+"CLIENT_CERTIFICATE"), getenv(signal+"CLIENT_KEY")
		switch {
		case cert == "" && key == "":
		case cert == "" || key == "":
			bad("%sCLIENT_CERTIFICATE and %sCLIENT_KEY go together: set both or neither", signal, signal)
		default:
			if _, err := tls.LoadX509KeyPair(cert, key); err != nil {
				bad("%sCLIENT_CERTIFICATE/CLIENT_KEY: %v", signal, shortFileError(err))
			}
		}
	}
	return problems
}

// checkCertificate wants a PEM file of one or more certificates.
func checkCertificate(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return shortFileError(err)
	}
	if !x509.NewCertPool().AppendCertsFromPEM(b) {
		return fmt.Errorf("%s holds no PEM certificate", path)
	}
	return nil
}

// shortFileError keeps the path and the cause: "ca.pem: no such file or
// directory".
func shortFileError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// ParseKeyValues reads the specification's list form, used by
// OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES: key=value pairs
// separated by commas, values percent-encoded.
func ParseKeyValues(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not key=value", strings.TrimSpace(pair))
		}
		value, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("the value of %q is not URL-encoded (%v)", k, err)
		}
		out[k] = value
	}
	return out, nil
}

// limitVars are the SDK's numeric settings: span limits and the batch
// processor's.
var limitVars = []string{
	"OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_ATTRIBUTE_COUNT_LIMIT",
	"OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT",
	"OTEL_SPAN_EVENT_COUNT_LIMIT", "OTEL_SPAN_LINK_COUNT_LIMIT",
	"OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT", "OTEL_LINK_ATTRIBUTE_COUNT_LIMIT",
	"OTEL_BSP_SCHEDULE_DELAY", "OTEL_BSP_EXPORT_TIMEOUT", "OTEL_BSP_MAX_QUEUE_SIZE", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE",
}

func checkLimits(getenv func(string) string, problems []error) []error {
	for _, k := range limitVars {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			if _, err := strconv.Atoi(v); err != nil {
				problems = append(problems, fmt.Errorf("%s=%q: write a whole number", k, v))
			}
		}
	}
	if v := getenv("OTEL_RESOURCE_ATTRIBUTES"); v != "" {
		if _, err := ParseKeyValues(v); err != nil {
			problems = append(problems, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %v; write key=value pairs separated by commas", err))
		}
	}
	return problems
}

// firstSet is the first of keys set to something other than blanks, or "".
func firstSet(getenv func(string) string, keys ...string) string {
	for _, k := range keys {
		if strings.TrimSpace(getenv(k)) != "" {
			return k
		}
	}
	return ""
}
