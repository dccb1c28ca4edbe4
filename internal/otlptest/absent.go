package otlptest

import (
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/otlprecv"
)

// The two collectors that fail without refusing: one that is down (nothing
// listens) and one that hangs (it accepts connections and never answers).
// A collector that refuses is a Receiver with Refuse set.

// Down is ListenDown for a test.
func Down(t testing.TB) string {
	t.Helper()
	endpoint, err := otlprecv.ListenDown()
	if err != nil {
		t.Fatal(err)
	}
	return endpoint
}

// Hanging is ListenHanging for a test; it stops when the test ends.
func Hanging(t testing.TB) string {
	t.Helper()
	endpoint, stop, err := otlprecv.ListenHanging()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return endpoint
}
