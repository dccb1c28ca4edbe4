package spanmap

import (
	"fmt"
	"slices"
	"time"

	"github.com/cursor-otel/cursor-otel/parse"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tool is the span of a tool call, opened at its first update; each
// update moves its end, and completed or failed ends it.
func (a *ACP) tool(t *acpTurn, tc parse.ACPToolCall, at time.Time) *acpTool {
	tl := t.tools[tc.ToolCallID]
	if tl == nil {
		// Named when it ends (nameTool): a later update may give its kind.
		attrs := append(a.appendCommon(make([]attribute.KeyValue, 0, acpToolAttrs), t.sess),
			OperationName.String(OpExecuteTool), a.str(ToolCallID, tc.ToolCallID), ToolType.String("function"))
		tl = &acpTool{span: a.startDraft(t.root.sc, &draft{name: "execute_tool", kind: trace.SpanKindInternal, attrs: attrs}, at)}
		t.tools[tc.ToolCallID] = tl
	}
	if tl.ended {
		return tl
	}
	tl.last = at
	if tc.Kind != "" && tc.Kind != tl.kind {
		tl.kind = tc.Kind
		tl.span.set(ACPToolKind.String(tc.Kind))
	}
	if tool, server := tc.MCP(); tool != "" || server != "" {
		tl.mcpTool, tl.mcpServer = tool, server
	}
	if len(tc.Locations) > 0 {
		tl.paths = tl.paths[:0]
		for _, l := range tc.Locations {
			tl.paths = append(tl.paths, l.Path)
		}
	}
	if tc.Title != "" {
		tl.span.set(ACPToolTitle.String(a.text(tc.Title, a.opts.MaxContent)))
	}
	if a.opts.CaptureContent && len(tc.RawInput) > 0 {
		tl.span.set(ToolArguments.String(a.jsonText(string(tc.RawInput), a.opts.MaxContent)))
	}
	if a.opts.CaptureContent && len(tc.RawOutput) > 0 {
		tl.span.set(ToolResult.String(a.jsonText(string(tc.RawOutput), a.opts.MaxContent)))
	}
	switch tc.Status {
	case "completed":
		tl.span.set(ACPToolStatus.String(tc.Status), ToolOutcome.String("success"))
		a.endTool(t, tl, at)
	case "failed":
		tl.span.set(ACPToolStatus.String(tc.Status), ToolOutcome.String(OutcomeError), ErrorType.String(ErrTool))
		tl.span.setStatus(codes.Error, "tool call failed")
		a.endTool(t, tl, at)
	case "", "pending", "in_progress":
		if tc.Status != "" {
			tl.span.set(ACPToolStatus.String(tc.Status))
		}
		t.current = tl
	}
	return tl
}

// toolFor is the tool call the agent's request for path (or for no file)
// is work for: of the tool calls in flight, the one whose locations name
// the file (the latest updated, if several do), else the one in progress.
func (t *acpTurn) toolFor(path string) *acpTool {
	var found *acpTool
	if path != "" {
		for _, tl := range t.tools {
			if !tl.ended && slices.Contains(tl.paths, path) && (found == nil || tl.last.After(found.last)) {
				found = tl
			}
		}
	}
	if found == nil && t.current != nil && !t.current.ended {
		found = t.current
	}
	return found
}

func (a *ACP) endTool(t *acpTurn, tl *acpTool, at time.Time) {
	for _, sub := range slices.Clone(t.topTurn().subs) {
		if sub.parentTool == tl {
			a.endSub(sub, at, "", "") // the tool that ran it is done
		}
	}
	a.nameTool(tl)
	tl.ended = true
	a.end(tl.span, at)
	if t.current == tl {
		t.current = nil
	}
}

func (a *ACP) endThinking(t *acpTurn) {
	th := t.thinking
	if th == nil {
		return
	}
	t.thinking = nil
	t.root.addEvent(EventThinking, th.start, th.attributes(&a.shaper)...)
}

// appendRPC appends what names a request by the JSON-RPC conventions,
// old and current.
func (r *shaper) appendRPC(attrs []attribute.KeyValue, m *parse.ACPRequest) []attribute.KeyValue {
	return append(attrs, RPCSystem.String("jsonrpc"), RPCSystemName.String("jsonrpc"), RPCMethod.String(m.Method),
		r.str(RPCRequestID, m.ID), r.str(JSONRPCRequestID, m.ID), JSONRPCVersion.String("2.0"))
}

// rpcError is an error answer's attributes.
func (a *ACP) rpcError(e *parse.RPCError) []attribute.KeyValue {
	code := fmt.Sprint(e.Code)
	return []attribute.KeyValue{RPCJSONRPCCode.Int(e.Code), RPCStatusCode.String(code), ErrorType.String(code),
		RPCJSONRPCMessage.String(a.text(e.Message, 1024))}
}

// nameTool names a tool call's span by what its updates said, at its end.
func (a *ACP) nameTool(tl *acpTool) {
	name := parse.ACPToolName(tl.kind)
	if tl.mcpServer != "" || tl.mcpTool != "" {
		// An MCP tool is named by its tool, with its server.
		tl.span.set(MCPServer.String(tl.mcpServer), MCPTool.String(tl.mcpTool), MCPMethod.String("tools/call"))
		if tl.mcpTool != "" {
			name = tl.mcpTool
		}
	}
	tl.span.name = "execute_tool " + name
	tl.span.set(ToolName.String(name))
}
