package spanmap

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// toolCall is a tool call that has started and not completed.
type toolCall struct {
	parent *modelCall
	sc     trace.SpanContext
	call   parse.ToolCall
	start  time.Time
	// waitFrom and waitTo span the waits on the person made under it,
	// which it covers even when its own times do not (times going back).
	waitFrom, waitTo time.Time
}

// cover has the tool call cover a wait made under it, [start, end].
func (tc *toolCall) cover(start, end time.Time) {
	if tc.waitFrom.IsZero() || start.Before(tc.waitFrom) {
		tc.waitFrom = start
	}
	tc.waitTo = later(tc.waitTo, end)
}

// covering is the tool call's start, and end as given, widened to cover
// the waits made under it.
func (tc *toolCall) covering(end time.Time) (time.Time, time.Time) {
	start := tc.start
	if !tc.waitFrom.IsZero() {
		start, end = earlier(start, tc.waitFrom), later(end, tc.waitTo)
	}
	return start, end
}

func (s *session) startTool(e *parse.ToolStarted, t time.Time, ownTime bool) {
	if _, repeated := s.tools[e.Call.ID]; repeated {
		return
	}
	mc := s.modelCallFor(&e.Header, t, ownTime)
	mc.output(t, ownTime)
	mc.endThinking()
	mc.tools++
	mc.running++
	mc.calls = append(mc.calls, toolPart{id: e.Call.ID, name: e.Call.Name, args: e.Call.Args})
	s.tools[e.Call.ID] = &toolCall{parent: mc, sc: s.rec.child(mc.p.sc), call: e.Call, start: t}
}

// completeTool ends the tool call the completion names, whatever order
// parallel calls complete in, and returns when it ended. A tool call is
// exactly [startedAtMs, completedAtMs] when the stream says them: its model
// call grows to cover it, never the reverse.
func (s *session) completeTool(e *parse.ToolCompleted, t time.Time) time.Time {
	tc, started := s.tools[e.Call.ID]
	if started {
		delete(s.tools, e.Call.ID)
		tc.parent.running--
	} else {
		tc = s.unstartedTool(e, t)
	}
	if !e.Call.StartedAt.IsZero() {
		tc.start = s.clock.agentTime(e.Call.StartedAt, s.readAt)
	}
	end := t
	if e.Call.CompletedAt.IsZero() && e.Time.IsZero() && e.Call.Duration > 0 {
		end = later(end, tc.start.Add(e.Call.Duration))
	}
	tc.start, end = tc.covering(later(end, tc.start))
	tc.complete(e, end, !started)
	mc := tc.parent
	mc.see(end)
	mc.p.grow(tc.start, end)
	s.closeIfDone(mc)
	return end
}

// unstartedTool makes the state for a completion whose start never came.
// It belongs to the model call it names, else to the one under way.
func (s *session) unstartedTool(e *parse.ToolCompleted, t time.Time) *toolCall {
	mc := s.current
	if e.ModelCallID != "" || mc == nil {
		mc = s.modelCallFor(&e.Header, t, true)
	}
	start := t
	if e.Call.Duration > 0 {
		start = t.Add(-e.Call.Duration)
	}
	mc.tools++
	mc.calls = append(mc.calls, toolPart{id: e.Call.ID, name: e.Call.Name, args: e.Call.Args})
	return &toolCall{parent: mc, sc: s.rec.child(mc.p.sc), call: e.Call, start: start}
}

func (tc *toolCall) complete(e *parse.ToolCompleted, end time.Time, startMissing bool) {
	call := tc.call.Merge(e.Call)
	rec := tc.parent.sess.rec
	p := tc.draft(call, string(e.Result.Outcome), end)
	if startMissing {
		p.attrs = append(p.attrs, ToolStartMiss.Bool(true))
	}
	if rec.opts.CaptureContent && len(e.Result.Raw) > 0 {
		p.attrs = append(p.attrs, ToolResult.String(rec.jsonText(e.Result.Raw, rec.opts.MaxContent)))
	}
	rec.toolEnd(p, call, string(e.Result.Outcome), toolErrorType(e.Result.Kind), e.Result.Message)
	rec.emit(p)
	if call.Subagent != nil && len(call.Subagent.Steps) > 0 {
		tc.parent.sess.subagent(p, call.Subagent)
	}
}

// endIncomplete ends a tool call that never completed, closed as how
// says (streamClosing); interrupted says a signal came.
func (tc *toolCall) endIncomplete(end time.Time, how closing, interrupted bool) {
	start, end := tc.covering(later(end, tc.start))
	tc.start = start
	p := tc.draft(tc.call, OutcomeIncomplete, end)
	why := "no completion before the stream ended"
	if interrupted {
		why = "interrupted"
	}
	p.unfinish(how, why)
	tc.parent.p.grow(p.start, p.end)
	tc.parent.sess.rec.emit(p)
}

// draft is the tool call's span with everything known of the call.
func (tc *toolCall) draft(call parse.ToolCall, outcome string, end time.Time) *draft {
	p := tc.parent.sess.rec.toolDraft(call, outcome)
	p.sc, p.parent, p.in = tc.sc, tc.parent.p.sc, tc.parent.p.in
	p.start, p.end = tc.start, end
	return p
}

// toolAttributes are a tool call's attributes: what it is, and the facts a
// person looks for (strings from the stream redacted).
func (r *shaper) toolAttributes(call parse.ToolCall, name string) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		OperationName.String(OpExecuteTool),
		ToolName.String(name),
		ToolType.String("function"),
	}
	if call.ID != "" {
		attrs = append(attrs, r.str(ToolCallID, call.ID))
	}
	if call.MCPTool != "" || call.Name == "mcp" {
		attrs = append(attrs, MCPMethod.String("tools/call"))
	}
	if call.MCPTool != "" {
		attrs = append(attrs, MCPTool.String(r.text(call.MCPTool, maxMessage)))
	}
	if call.MCPServer != "" {
		attrs = append(attrs, MCPServer.String(r.text(call.MCPServer, maxMessage)))
	}
	if sub := call.Subagent; sub != nil {
		for _, kv := range []struct {
			k attribute.Key
			v string
		}{{SubagentID, sub.ID}, {SubagentType, sub.Type}, {SubagentModel, sub.Model}, {SubagentDescription, sub.Description}} {
			if v := r.value(kv.k, kv.v, maxMessage); v != "" {
				attrs = append(attrs, kv.k.String(v))
			}
		}
	}
	attrs = append(attrs, r.factAttributes(call.Facts)...)
	if r.opts.CaptureContent && len(call.Args) > 0 {
		attrs = append(attrs, ToolArguments.String(r.jsonText(call.Args, r.opts.MaxContent)))
	}
	return attrs
}

// factAttributes turns what a person looks for into attributes; strings
// from the stream are redacted.
func (r *shaper) factAttributes(f parse.Facts) []attribute.KeyValue {
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
	num(ExitCode, f.ExitCode) // process.exit.code, as the conventions name a command's status
	num(ToolLines, f.Lines)
	num(ToolLinesAdded, f.LinesAdded)
	num(ToolLinesRemove, f.LinesRemoved)
	num(ToolBytes, f.Bytes)
	num(ToolOutputBytes, f.OutputBytes)
	num(ToolFiles, f.Files)
	num(ToolExecutionMs, f.ExecutionMs)
	num(ToolLocalExecMs, f.LocalExecMs)
	num(ToolHardTimeoutMs, f.HardTimeout)
	return attrs
}
