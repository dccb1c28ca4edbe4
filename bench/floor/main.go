// Command floor links what cursor-otel is built on, the OpenTelemetry SDK
// and its OTLP/gRPC exporter, and does nothing: its start is the least a
// wrapper made of them can add to a run, however little it does. go run
// ./bench measures it beside a minimal Go program.
package main

import (
	_ "go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	_ "go.opentelemetry.io/otel/sdk/trace"
)

func main() {}
