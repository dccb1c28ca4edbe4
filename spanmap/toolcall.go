package spanmap

import (
	"cmp"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// toolCall is a tool call that has started and not completed. Its span is
// made when it ends: a span is exported only when it ends anyway, and by
// then the completion may have told more (its own start time, its name).
type toolCall struct {
	parent *modelCall
	call   parse.ToolCall
	start  time.Time
}

func (s *session) startTool(e *parse.ToolStarted, t time.Time) {
	if _, repeated := s.tools[e.Call.ID]; repeated {
		return
	}
	mc := s.modelCallFor(&e.Header, t)
	mc.output(t)
	mc.endThinking()
	mc.tools++
	mc.running++
	s.tools[e.Call.ID] = &toolCall{parent: mc, call: e.Call, start: later(t, mc.start)}
}

// completeTool ends the tool call the completion names, whatever order
// parallel calls complete in, and returns when it ended.
func (s *session) completeTool(e *parse.ToolCompleted, t time.Time) time.Time {
	tc, started := s.tools[e.Call.ID]
	if started {
		delete(s.tools, e.Call.ID)
		tc.parent.running--
	} else {
		tc = s.unstartedTool(e, t)
	}
	if !e.Call.StartedAt.IsZero() {
		// The tool's own account beats the line's time, but no tool starts
		// before the model call that issued it: the difference is skew
		// between the agent's clocks (startedAtMs can run a second ahead of
		// timestamp_ms).
		tc.start = later(e.Call.StartedAt, tc.parent.start)
	}
	end := t
	if e.Call.CompletedAt.IsZero() && e.Time.IsZero() && e.Call.Duration > 0 {
		end = later(end, tc.start.Add(e.Call.Duration))
	}
	end = later(end, tc.start)
	tc.complete(e, end, !started)
	mc := tc.parent
	mc.see(end)
	s.closeIfDone(mc)
	return end
}

// unstartedTool makes the state for a completion whose start never came.
// It belongs to the model call it names, else to the one under way.
func (s *session) unstartedTool(e *parse.ToolCompleted, t time.Time) *toolCall {
	mc := s.current
	if e.ModelCallID != "" || mc == nil {
		mc = s.modelCallFor(&e.Header, t)
	}
	start := t
	if e.Call.Duration > 0 {
		start = t.Add(-e.Call.Duration)
	}
	mc.tools++
	return &toolCall{parent: mc, call: e.Call, start: later(start, mc.start)}
}

func (tc *toolCall) complete(e *parse.ToolCompleted, end time.Time, startMissing bool) {
	call := merge(tc.call, e.Call)
	outcome := string(e.Result.Outcome)
	span := tc.span(call, outcome)
	rec := tc.parent.sess.rec
	var attrs []attribute.KeyValue
	if startMissing {
		attrs = append(attrs, ToolStartMiss.Bool(true))
	}
	if rec.opts.CaptureContent && len(e.Result.Raw) > 0 {
		attrs = append(attrs, ToolResult.String(rec.text(e.Result.Raw, rec.opts.MaxContent)))
	}
	if e.Result.Outcome != parse.Success {
		if msg := rec.text(e.Result.Message, maxMessage); msg != "" {
			attrs = append(attrs, ToolError.String(msg))
		}
	}
	if e.Result.Outcome == parse.Failed {
		msg := e.Result.Message
		if msg == "" && call.Facts.ExitCode != nil {
			msg = fmt.Sprintf("exit status %d", *call.Facts.ExitCode)
		}
		attrs = append(attrs, ErrorType.String(cmp.Or(e.Result.Kind, "error")))
		span.SetStatus(codes.Error, rec.text(cmp.Or(msg, "tool call failed"), maxMessage))
	}
	span.SetAttributes(attrs...)
	span.End(trace.WithTimestamp(end))
}

// endIncomplete ends a tool call that never completed, because the run was
// interrupted or the stream ended. When part of the stream was not traced
// its completion may be in that part: then it is incomplete, but not
// called a failure.
func (tc *toolCall) endIncomplete(end time.Time, interrupted, untraced bool) {
	span := tc.span(tc.call, OutcomeIncomplete)
	switch {
	case untraced:
		span.SetAttributes(StreamUntraced.Bool(true))
	case interrupted:
		span.SetAttributes(ErrorType.String(OutcomeIncomplete))
		span.SetStatus(codes.Error, "interrupted")
	default:
		span.SetAttributes(ErrorType.String(OutcomeIncomplete))
		span.SetStatus(codes.Error, "no completion before the stream ended")
	}
	span.End(trace.WithTimestamp(later(end, tc.start)))
}

// span starts the tool call's span with everything known of the call.
func (tc *toolCall) span(call parse.ToolCall, outcome string) trace.Span {
	rec := tc.parent.sess.rec
	name := cmp.Or(call.Name, "unknown")
	attrs := []attribute.KeyValue{
		OperationName.String(OpExecuteTool),
		ToolName.String(name),
		ToolCallID.String(call.ID),
		ToolType.String("function"),
		ToolOutcome.String(outcome),
	}
	if call.MCPTool != "" {
		attrs = append(attrs, MCPTool.String(call.MCPTool))
	}
	attrs = append(attrs, rec.factAttributes(call.Facts)...)
	if rec.opts.CaptureContent && len(call.Args) > 0 {
		attrs = append(attrs, ToolArguments.String(rec.text(call.Args, rec.opts.MaxContent)))
	}
	_, span := rec.tracer.Start(tc.parent.ctx, "execute_tool "+name,
		trace.WithTimestamp(tc.start),
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attrs...))
	return span
}

// merge combines what the start and the completion said of a call: the
// start's arguments and names, the completion's results.
func merge(started, done parse.ToolCall) parse.ToolCall {
	c := started
	c.Name = cmp.Or(started.Name, done.Name)
	c.Source = cmp.Or(started.Source, done.Source)
	c.MCPTool = cmp.Or(started.MCPTool, done.MCPTool)
	if len(c.Args) == 0 {
		c.Args = done.Args
	}
	f, d := &c.Facts, done.Facts
	f.Command = cmp.Or(f.Command, d.Command)
	f.WorkingDir = cmp.Or(f.WorkingDir, d.WorkingDir)
	f.Path = cmp.Or(f.Path, d.Path)
	f.Pattern = cmp.Or(f.Pattern, d.Pattern)
	f.URL = cmp.Or(f.URL, d.URL)
	f.Query = cmp.Or(f.Query, d.Query)
	f.Signal = cmp.Or(d.Signal, f.Signal)
	for _, p := range []struct{ dst, src **int64 }{
		{&f.ExitCode, &d.ExitCode}, {&f.Lines, &d.Lines}, {&f.LinesAdded, &d.LinesAdded},
		{&f.LinesRemoved, &d.LinesRemoved}, {&f.Bytes, &d.Bytes}, {&f.OutputBytes, &d.OutputBytes},
		{&f.Files, &d.Files}, {&f.ExecutionMs, &d.ExecutionMs},
	} {
		if *p.src != nil {
			*p.dst = *p.src
		}
	}
	return c
}

// factAttributes turns what a person looks for into attributes; strings
// from the stream are redacted.
func (r *Recorder) factAttributes(f parse.Facts) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	str := func(k attribute.Key, v string) {
		if v != "" {
			attrs = append(attrs, k.String(r.text(v, maxMessage)))
		}
	}
	num := func(k attribute.Key, v *int64) {
		if v != nil {
			attrs = append(attrs, k.Int64(*v))
		}
	}
	str(ToolCommand, f.Command)
	str(ToolWorkingDir, f.WorkingDir)
	str(ToolPath, f.Path)
	str(ToolPattern, f.Pattern)
	str(ToolURL, f.URL)
	str(ToolQuery, f.Query)
	str(ToolSignal, f.Signal)
	num(ToolExitCode, f.ExitCode)
	num(ToolLines, f.Lines)
	num(ToolLinesAdded, f.LinesAdded)
	num(ToolLinesRemove, f.LinesRemoved)
	num(ToolBytes, f.Bytes)
	num(ToolOutputBytes, f.OutputBytes)
	num(ToolFiles, f.Files)
	num(ToolExecutionMs, f.ExecutionMs)
	return attrs
}
