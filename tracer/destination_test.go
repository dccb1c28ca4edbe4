package tracer

import (
	"os"
	"testing"
)

// Spellings the fuzz target once found the exporter sends alike: each
// pair must get one destination.
func TestDestinationSameRequestSameDestination(t *testing.T) {
	for _, tc := range []struct{ name, a, b string }{
		// HTTP sets one header per name: B= and b= are one empty b.
		{"equal values differing in case", "B=,b=", " B =x, B ="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			envA := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_HEADERS": tc.a}
			envB := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": tc.b}
			reqA, toA, okA := exporterRequest(t, envA)
			reqB, toB, okB := exporterRequest(t, envB)
			for _, k := range spellingVars {
				os.Unsetenv(k)
			}
			if !okA || !okB {
				t.Fatalf("no request captured (%v, %v)", okA, okB)
			}
			if reqA != reqB {
				t.Fatalf("the exporter sends these differently: %q and %q", reqA, reqB)
			}
			if toA != toB {
				t.Errorf("same request, destinations %q and %q", toA, toB)
			}
		})
	}
}
