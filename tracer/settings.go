package tracer

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// settings are the standard OTEL_* variables as cursor-otel reads them;
// everything else (headers, TLS files, compression, timeout) the OTLP
// exporters read themselves.
type settings struct {
	exporters    []string // otlp, console
	protocol     string   // grpc or http/protobuf
	endpoint     string   // as the user wrote it, or the default
	userEndpoint bool
}

// Default endpoints: plaintext, on this machine, as the contract says, so
// that a local Jaeger works with no settings at all.
const (
	defaultGRPCEndpoint = "localhost:4317"
	defaultHTTPEndpoint = "localhost:4318"
)

func readSettings(getenv func(string) string) (settings, error) {
	var s settings
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return s, nil
	}
	list := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER"))
	if list == "" {
		list = "otlp"
	}
	for _, name := range strings.Split(list, ",") {
		switch name = strings.ToLower(strings.TrimSpace(name)); name {
		case "otlp", "console":
			if !slices.Contains(s.exporters, name) {
				s.exporters = append(s.exporters, name)
			}
		case "none":
			return settings{}, nil
		case "":
		default:
			return s, fmt.Errorf("OTEL_TRACES_EXPORTER: unknown exporter %q (want otlp, console or none)", name)
		}
	}
	if !slices.Contains(s.exporters, "otlp") {
		return s, nil
	}

	s.protocol = firstEnv(getenv, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
	switch s.protocol {
	case "":
		s.protocol = "grpc"
	case "grpc", "http/protobuf":
	default:
		return s, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL: %q is not supported (want grpc or http/protobuf)", s.protocol)
	}

	if e := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); e != "" {
		s.endpoint, s.userEndpoint = e, true
	} else if e := getenv("OTEL_EXPORTER_OTLP_ENDPOINT"); e != "" {
		s.endpoint, s.userEndpoint = e, true
	}
	if s.userEndpoint {
		// A URL, as the specification wants: a bare host:port would be TLS
		// for one host name and unreadable for an IP address.
		if u, err := url.Parse(s.endpoint); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "unix") {
			return s, fmt.Errorf("OTLP endpoint %q is not a URL: write http://%s for plaintext or https://%s for TLS",
				s.endpoint, strings.TrimPrefix(s.endpoint, "//"), strings.TrimPrefix(s.endpoint, "//"))
		}
	} else if s.protocol == "grpc" {
		s.endpoint = defaultGRPCEndpoint
	} else {
		s.endpoint = defaultHTTPEndpoint
	}
	return s, nil
}

func firstEnv(getenv func(string) string, keys ...string) string {
	for _, k := range keys {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return v
		}
	}
	return ""
}
