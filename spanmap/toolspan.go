package spanmap

import (
	"cmp"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// toolDraft is a tool call's span as every source that knows the call
// starts it (a stream, a subagent's steps, the hooks; ACP's tool calls
// are named only as they end): execute_tool {tool}, INTERNAL, what the
// call is, and how it ended (cursor.tool.outcome).
func (r *shaper) toolDraft(call parse.ToolCall, outcome string) *draft {
	name := cmp.Or(r.text(call.Name, maxMessage), "unknown")
	return &draft{name: "execute_tool " + name, kind: trace.SpanKindInternal,
		attrs: append(r.toolAttributes(call, name), ToolOutcome.String(outcome))}
}

// toolEnd says how a tool call that did not succeed ended, whichever
// source told it: the reason (cursor.tool.error) when it failed or was
// refused; a failure is ERROR with error.type errType and the reason, or
// the command's exit status, as its message.
func (r *shaper) toolEnd(p *draft, call parse.ToolCall, outcome, errType, reason string) {
	if outcome != OutcomeError && outcome != OutcomeRejected {
		return
	}
	if msg := r.text(reason, maxMessage); msg != "" {
		p.attrs = append(p.attrs, ToolError.String(msg))
	}
	if outcome == OutcomeError {
		if reason == "" && call.Facts.ExitCode != nil {
			reason = "exit status " + strconv.FormatInt(*call.Facts.ExitCode, 10)
		}
		p.attrs = append(p.attrs, ErrorType.String(errType))
		p.code, p.message = codes.Error, r.text(cmp.Or(reason, "tool call failed"), maxMessage)
	}
}

// chatDraft is a model call's span as every source that tells model
// calls starts it (a stream, a subagent's steps, the hooks' generations):
// chat {model}, CLIENT. The model is shaped already.
func chatDraft(model string) draft {
	p := draft{name: "chat", kind: trace.SpanKindClient, attrs: []attribute.KeyValue{OperationName.String(OpChat), ProviderName.String("cursor")}}
	if model != "" {
		p.name += " " + model
		p.attrs = append(p.attrs, RequestModel.String(model))
	}
	return p
}

// chatEnd ends a model call's span: the tool calls it made, why it
// finished, and with content capture what it said (its reasoning and
// text shaped already, the calls it made).
func (r *shaper) chatEnd(p *draft, tools int, finish string, reasoning []string, text string, calls []toolPart) {
	p.attrs = append(p.attrs, ToolCalls.Int(tools), FinishReasons.StringSlice([]string{finish}))
	if r.opts.CaptureContent && (text != "" || len(reasoning) > 0 || len(calls) > 0) {
		p.attrs = append(p.attrs, OutputMessages.String(r.outputMessage(finish, reasoning, text, calls)))
	}
}

// toolErrorType is error.type for a stream's failed tool call whose
// result was of the kind given.
func toolErrorType(kind string) string {
	if kind == "timeout" {
		return ErrTimeout
	}
	return ErrTool
}
