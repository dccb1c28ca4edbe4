package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The peer: otel-cli, the common way to wrap a command in a span from a
// shell. Its exec subcommand runs a command and exports one span over
// OTLP, as cursor-otel does for cursor-agent; what it adds to a run is
// what a user already accepts from a tracing wrapper.
const (
	peerModule  = "github.com/equinix-labs/otel-cli"
	peerVersion = "v0.4.5"
)

// buildPeer builds otel-cli into dir/otel-cli, as cursor-otel is built
// (build: no cgo, trimmed). go install of the version fails behind a
// module proxy that will not list the module's versions; go get of the
// version, in a module of its own, then go build, does not.
func buildPeer(dir string) (string, error) {
	out, mod := filepath.Join(dir, "otel-cli"), filepath.Join(dir, "otel-cli-module")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		return "", err
	}
	goCmd := func(args ...string) error {
		cmd := exec.Command("go", args...)
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-mod=mod")
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, lastLine(b))
		}
		return nil
	}
	if _, err := os.Stat(filepath.Join(mod, "go.mod")); err != nil {
		if err := goCmd("mod", "init", "bench/peer"); err != nil {
			return "", err
		}
	}
	for _, args := range [][]string{
		{"get", peerModule + "@" + peerVersion},
		{"build", "-trimpath", "-ldflags=-s -w", "-o", out, peerModule},
	} {
		if err := goCmd(args...); err != nil {
			return "", err
		}
	}
	return out, nil
}

// peerCommand is otel-cli exec running args, exporting its span over
// OTLP/gRPC to endpoint (host:port), plaintext.
func peerCommand(peer, endpoint string, env []string, args ...string) command {
	return command{name: peer, env: env, args: append([]string{"exec", "--endpoint", endpoint, "--protocol", "grpc", "--insecure",
		"--name", peerSpan, "--"}, args...)}
}

// peerSpan is the name of otel-cli's spans, counted at the receiver.
const peerSpan = "otel-cli exec"

// lastLine is the last non-empty line of b.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// hostPort is an endpoint URL's host and port.
func hostPort(endpoint string) string {
	_, rest, found := strings.Cut(endpoint, "://")
	if !found {
		return endpoint
	}
	return rest
}
