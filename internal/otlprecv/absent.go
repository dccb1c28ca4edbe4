package otlprecv

import (
	"fmt"
	"net"
)

// The two collectors that fail without refusing: one that is down (nothing
// listens) and one that hangs (it accepts connections and never answers).
// A collector that refuses is a Receiver with Refuse set.

// ListenDown returns an endpoint where nothing listens: a port that was
// free a moment ago, on 127.0.0.1.
func ListenDown() (string, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	defer lis.Close()
	return "http://" + lis.Addr().String(), nil
}

// ListenHanging returns an endpoint that accepts connections and never
// answers, and what stops it.
func ListenHanging() (endpoint string, stop func(), err error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listen: %w", err)
	}
	return "http://" + lis.Addr().String(), func() { lis.Close() }, nil
}
