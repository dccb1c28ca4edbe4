// Command floor is built on what cursor-otel is built on, the OpenTelemetry
// SDK and its OTLP/gRPC exporter, and does the least a program made of them
// can do for each of the bench's targets. go run ./bench measures it beside
// cursor-otel: what it costs, no cursor-otel can undercut.
//
//	floor                 starts, and does nothing
//	floor wrap CMD ARG…   runs CMD, its output passed straight through, and
//	                      exports a small run's 11 spans
//	floor spans N         makes N spans in traces shaped as replay's, and
//	                      exports them, blocking rather than dropping one
//	floor read N FILE     as spans N, while another goroutine reads FILE
//	                      as the least a replay of it must: every line
//	                      found, and in each its "type" (readStream)
//
// The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT as cursor-otel's does.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

func main() {
	if len(os.Args) < 2 {
		return
	}
	status, err := run(context.Background(), os.Args[1], os.Args[2:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
	}
	os.Exit(status)
}

func run(ctx context.Context, mode string, args []string) (int, error) {
	exp, err := otlptracegrpc.New(ctx)
	if err != nil {
		return 1, err
	}
	// As cursor-otel's tracer does: a batch processor that waits for the
	// exporter rather than drop a span.
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, sdktrace.WithBlocking()))
	tr := tp.Tracer("floor")
	status := 0
	switch {
	case mode == "wrap" && len(args) > 0:
		status, err = wrap(ctx, tr, args)
	case mode == "spans" && len(args) == 1:
		var n int
		if n, err = strconv.Atoi(args[0]); err == nil {
			spans(ctx, tr, n)
		}
	case mode == "read" && len(args) == 2:
		var n int
		if n, err = strconv.Atoi(args[0]); err == nil {
			read := make(chan error, 1)
			go func() { _, err := readStream(args[1]); read <- err }()
			spans(ctx, tr, n)
			err = <-read
		}
	default:
		err = errors.New("usage: floor [wrap CMD ARG… | spans N | read N FILE]")
	}
	if serr := tp.Shutdown(ctx); err == nil {
		err = serr
	}
	if err != nil && status == 0 {
		status = 1
	}
	return status, err
}

// wrap runs the command with this process's standard streams, then makes
// a session span with ten children, as many as the bench's small run.
func wrap(ctx context.Context, tr trace.Tracer, args []string) (int, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sctx, session := tr.Start(ctx, "invoke_agent cursor-agent")
	err := cmd.Run()
	for range 10 {
		_, s := tr.Start(sctx, "chat")
		s.End()
	}
	session.End()
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	return 0, err
}

// spans makes n spans (rounded up to whole traces) shaped as replay makes
// them from the span-dense mix: a session, two model calls, a tool call
// under each, with the attributes replay gives each kind of span: 9.4 a
// span and 311 bytes of keys and string values (replay's there: 9.1, 300).
func spans(ctx context.Context, tr trace.Tracer, n int) {
	start := time.Unix(1_700_000_000, 0)
	arguments := `{"command":"go test ./...","working_directory":"/home/user/project","timeout":300000}`
	result := `{"exitCode":0,"stdout":"` + strings.Repeat("x", 30) + `","stderr":""}`
	for i := 0; i < n; i += 5 {
		id := strconv.Itoa(i)
		sctx, session := tr.Start(ctx, "invoke_agent cursor-agent", trace.WithTimestamp(start), trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "invoke_agent"),
			attribute.String("gen_ai.agent.name", "cursor-agent"),
			attribute.String("gen_ai.conversation.id", "5b4450f4-3204-4e3c-9d1e-"+id),
			attribute.String("cursor.cwd", "/home/user/project"),
			attribute.String("cursor.request_id", "9f1c7a52-"+id),
			attribute.Int("cursor.duration_ms", 18_250),
			attribute.Int("cursor.duration_api_ms", 18_250),
			attribute.String("cursor.permission_mode", "default"),
			attribute.String("cursor.api_key_source", "login")))
		for j := range 2 {
			call := id + "_" + strconv.Itoa(j)
			mctx, model := tr.Start(sctx, "chat Auto", trace.WithTimestamp(start), trace.WithAttributes(
				attribute.String("gen_ai.operation.name", "chat"),
				attribute.String("gen_ai.provider.name", "cursor"),
				attribute.String("gen_ai.request.model", "Auto"),
				attribute.String("cursor.model_call_id", "mc_"+call),
				attribute.Int("cursor.time_to_first_token_ms", 1_240),
				attribute.Float64("gen_ai.response.time_to_first_chunk", 1.24),
				attribute.StringSlice("gen_ai.response.finish_reasons", []string{"tool_call"}),
				attribute.Int("cursor.tool_calls", 1)))
			_, tool := tr.Start(mctx, "execute_tool shell", trace.WithTimestamp(start), trace.WithAttributes(
				attribute.String("gen_ai.operation.name", "execute_tool"),
				attribute.String("gen_ai.tool.name", "shell"),
				attribute.String("gen_ai.tool.type", "function"),
				attribute.String("gen_ai.tool.call.id", "call_"+call),
				attribute.String("gen_ai.tool.call.arguments", arguments),
				attribute.String("gen_ai.tool.call.result", result),
				attribute.String("cursor.tool.command", "go test ./..."),
				attribute.Int("cursor.tool.execution_ms", 2_150),
				attribute.Int("cursor.tool.exit_code", 0),
				attribute.String("cursor.tool.outcome", "success"),
				attribute.Int("cursor.tool.output_bytes", 30)))
			tool.End(trace.WithTimestamp(start.Add(3 * time.Second)))
			model.End(trace.WithTimestamp(start.Add(4 * time.Second)))
		}
		session.End(trace.WithTimestamp(start.Add(18 * time.Second)))
	}
}
