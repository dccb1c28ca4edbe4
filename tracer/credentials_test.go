package tracer

import (
	"slices"
	"testing"
)

func TestCredentials(t *testing.T) {
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS":          "x-honeycomb-team=hcaik_01hq3kxyz,x-honeycomb-dataset=ci",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS":   "authorization=Bearer%20tok_9f8e7d6c",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT":  "https://bot:p%40ss-w0rd@collector.example.com:4318/v1/traces",
		"OTEL_EXPORTER_OTLP_ENDPOINT":         "http://localhost:4317",
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "https://ghp_tokenAsUser@collector.example.com",
	}
	got := Credentials(func(k string) string { return env[k] })
	want := []string{
		"hcaik_01hq3kxyz", "ci",
		"Bearer%20tok_9f8e7d6c", "Bearer tok_9f8e7d6c", "tok_9f8e7d6c",
		"p%40ss-w0rd", "p@ss-w0rd", "ghp_tokenAsUser",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Credentials =\n %q\nwant\n %q", got, want)
	}
}

// A header setting the exporter refuses still holds a secret to mask.
func TestCredentialsOfMalformedSettings(t *testing.T) {
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS":  "api-key=abc%zz123456",
		"OTEL_EXPORTER_OTLP_ENDPOINT": "https://u:s3cr3t-pw@[bad",
	}
	got := Credentials(func(k string) string { return env[k] })
	want := []string{"abc%zz123456", "s3cr3t-pw"}
	if !slices.Equal(got, want) {
		t.Errorf("Credentials = %q, want %q", got, want)
	}
}
