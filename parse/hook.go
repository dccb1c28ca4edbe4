package parse

import (
	"bytes"
	"fmt"
	"time"

	"github.com/valyala/fastjson"
)

// HookEvent is one event Cursor hands a hook command on stdin (a
// hooks.json entry): the CLI's and the editor's agent alike. Every event
// names its conversation and generation; a tool event its tool.
//
// A hook journals it as it came (JSON), for a later build: its JSON names,
// and those of the types it holds (ToolCall, Usage, …), are that on-disk
// format, kept as first written so that a journal an earlier version
// wrote still reads.
type HookEvent struct {
	Name           string `json:"Name"` // hook_event_name: sessionStart, preToolUse, afterShellExecution, stop, …
	ConversationID string `json:"ConversationID"`
	GenerationID   string `json:"GenerationID"`
	Model          string `json:"Model"`
	CursorVersion  string `json:"CursorVersion"`
	Workspace      string `json:"Workspace"` // the first of workspace_roots
	Mode           string `json:"Mode"`      // sessionStart's composer_mode: agent, ask, plan, …
	// UserEmail is the signed-in person's address (user_email): never
	// kept (a journal holds what the settings allow of it, see
	// settings.MetricsUser), never on a span.
	UserEmail string `json:"-"`

	// A tool event: the tool (canonical name, facts, arguments), the key
	// that pairs its before and after events (tool_use_id, else its
	// command or MCP call), how long it ran and what it returned.
	Tool     *ToolCall     `json:"Tool"`
	ToolKey  string        `json:"ToolKey"`
	Duration time.Duration `json:"Duration"`
	Result   string        `json:"Result"`   // the tool's output or result JSON, as given
	Failed   bool          `json:"Failed"`   // postToolUseFailure
	Rejected bool          `json:"Rejected"` // a failure that is a refusal (permission denied)
	Timeout  bool          `json:"Timeout"`  // a failure that is a timeout
	Failure  string        `json:"Failure"`  // why it failed

	Prompt   string        `json:"Prompt"`   // beforeSubmitPrompt
	Text     string        `json:"Text"`     // afterAgentResponse's reply, afterAgentThought's thinking
	Thinking time.Duration `json:"Thinking"` // afterAgentThought's duration_ms
	Status   string        `json:"Status"`   // stop's status, sessionEnd's reason
	// ModelID is the model a second copy of a thought names (Cursor sends
	// afterAgentThought twice, the copy with a suffixed generation_id).
	ModelID string `json:"ModelID"`

	// Usage is a generation's token counts (afterAgentResponse, stop,
	// which repeat the same counts for their turn): input_tokens,
	// output_tokens, cache_read_tokens, cache_write_tokens. Cursor's
	// input_tokens there include the cached ones; Usage's InputTokens are
	// the fresh input, as in a stream's usage.
	Usage *Usage `json:"Usage"`

	// Compaction is preCompact's: the context about to be compacted.
	Compaction *Compaction `json:"Compaction"`

	SubagentID   string        `json:"SubagentID"`
	SubagentType string        `json:"SubagentType"`
	SubagentTask string        `json:"SubagentTask"`
	Subagent     SubagentFacts `json:"Subagent"`
}

// Compaction is a context compaction a preCompact hook announces.
type Compaction struct {
	Trigger           string   `json:"Trigger"` // auto or manual
	MessageCount      *int64   `json:"MessageCount"`
	MessagesToCompact *int64   `json:"MessagesToCompact"`
	First             *bool    `json:"First"` // is_first_compaction
	ContextTokens     *int64   `json:"ContextTokens"`
	ContextWindow     *int64   `json:"ContextWindow"`  // context_window_size
	ContextPercent    *float64 `json:"ContextPercent"` // context_usage_percent
	Model             string   `json:"Model"`
}

// SubagentFacts are what subagentStart and subagentStop say of a
// subagent beyond its id, type and task.
type SubagentFacts struct {
	ToolCallID           string `json:"ToolCallID"` // the task tool call that runs it
	Model                string `json:"Model"`      // subagent_model
	ParentConversationID string `json:"ParentConversationID"`
	ParallelWorker       *bool  `json:"ParallelWorker"`
	MessageCount         *int64 `json:"MessageCount"` // subagentStop's
	ToolCallCount        *int64 `json:"ToolCallCount"`
	LoopCount            *int64 `json:"LoopCount"`
}

// Hook event names (hook_event_name), as Cursor sends them.
const (
	HookSessionStart       = "sessionStart"         // a session begins
	HookSessionEnd         = "sessionEnd"           // a session ends
	HookPrompt             = "beforeSubmitPrompt"   // a generation's prompt
	HookResponse           = "afterAgentResponse"   // its reply
	HookThought            = "afterAgentThought"    // its thinking
	HookStop               = "stop"                 // its end
	HookPreToolUse         = "preToolUse"           // a tool call about to run
	HookPostToolUse        = "postToolUse"          // and done
	HookPostToolUseFailure = "postToolUseFailure"   // or failed
	HookBeforeShell        = "beforeShellExecution" // the shell's own hooks
	HookAfterShell         = "afterShellExecution"  // and done
	HookBeforeMCP          = "beforeMCPExecution"   // an MCP tool's own hooks
	HookAfterMCP           = "afterMCPExecution"    // and done
	HookAfterFileEdit      = "afterFileEdit"        // an edit done
	HookBeforeReadFile     = "beforeReadFile"       // a file read
	HookPreCompact         = "preCompact"           // the context about to be compacted
	HookSubagentStart      = "subagentStart"        // a subagent starts
	HookSubagentStop       = "subagentStop"         // and stops
)

// The tool events, by what they mark.
var (
	hookToolStarts = map[string]bool{HookPreToolUse: true, HookBeforeShell: true, HookBeforeMCP: true}
	hookToolEnds   = map[string]bool{HookPostToolUse: true, HookPostToolUseFailure: true, HookAfterShell: true, HookAfterMCP: true,
		HookAfterFileEdit: true, HookBeforeReadFile: true}
)

// StartsTool says the event is a tool call about to run.
func (e HookEvent) StartsTool() bool { return hookToolStarts[e.Name] }

// EndsTool says the event is a tool call done (an edit or a read, which
// have no event before them, is done when it is said).
func (e HookEvent) EndsTool() bool { return hookToolEnds[e.Name] }

// utf8BOM is the byte-order mark some Cursor versions put before a
// payload.
var utf8BOM = []byte("\xef\xbb\xbf")

// TrimBOM is data without a leading UTF-8 byte-order mark.
func TrimBOM(data []byte) []byte { return bytes.TrimPrefix(data, utf8BOM) }

// HookEventName is the hook_event_name of a hook event, read without
// decoding the rest; "" when data is not a hook event.
func HookEventName(data []byte) string {
	var p fastjson.Parser
	v, err := p.ParseBytes(bytes.TrimSpace(TrimBOM(bytes.TrimSpace(data))))
	if err != nil {
		return ""
	}
	return string(v.GetStringBytes("hook_event_name"))
}

// DecodeHook reads one hook event, with or without a byte-order mark.
func DecodeHook(data []byte) (HookEvent, error) {
	data = TrimBOM(data)
	var p fastjson.Parser
	v, err := p.ParseBytes(data)
	if err != nil {
		return HookEvent{}, fmt.Errorf("hook event: %w", err)
	}
	if v.Type() != fastjson.TypeObject {
		return HookEvent{}, fmt.Errorf("hook event: not a JSON object")
	}
	e := HookEvent{
		Name:           str(v.Get("hook_event_name")),
		ConversationID: str(v.Get("conversation_id")),
		GenerationID:   str(v.Get("generation_id")),
		Model:          str(v.Get("model")),
		CursorVersion:  str(v.Get("cursor_version")),
		Mode:           str(v.Get("composer_mode")),
		UserEmail:      str(v.Get("user_email")),
		Prompt:         str(v.Get("prompt")),
		Status:         first(str(v.Get("status")), str(v.Get("reason"))),
		SubagentID:     first(str(v.Get("subagent_id")), str(v.Get("agent_id"))),
		SubagentType:   first(str(v.Get("subagent_type")), str(v.Get("agent_type"))),
		SubagentTask:   first(str(v.Get("task")), str(v.Get("description"))),
	}
	if roots := v.GetArray("workspace_roots"); len(roots) > 0 {
		e.Workspace = str(roots[0])
	}
	if e.ConversationID == "" {
		e.ConversationID = str(v.Get("session_id"))
	}
	if d, ok := durationMs(v.Get("duration")); ok {
		e.Duration = d
	} else if d, ok := durationMs(v.Get("duration_ms")); ok {
		e.Duration = d
	}
	e.Usage = hookUsage(v)
	switch e.Name {
	case HookThought:
		e.ModelID = str(v.Get("model_id"))
	case HookPreCompact:
		e.Compaction = &Compaction{Trigger: str(v.Get("trigger")), MessageCount: integerPtr(v.Get("message_count")),
			MessagesToCompact: integerPtr(v.Get("messages_to_compact")), First: boolPtr(v.Get("is_first_compaction")),
			ContextTokens: integerPtr(v.Get("context_tokens")), ContextWindow: integerPtr(v.Get("context_window_size")),
			ContextPercent: floatPtr(v.Get("context_usage_percent")), Model: e.Model}
	case HookSubagentStart, HookSubagentStop:
		e.Subagent = SubagentFacts{ToolCallID: str(v.Get("tool_call_id")), Model: str(v.Get("subagent_model")), ParentConversationID: str(v.Get("parent_conversation_id")),
			ParallelWorker: boolPtr(v.Get("is_parallel_worker")), MessageCount: integerPtr(v.Get("message_count")),
			ToolCallCount: integerPtr(v.Get("tool_call_count")), LoopCount: integerPtr(v.Get("loop_count"))}
	}
	switch e.Name {
	case HookResponse, HookThought:
		e.Text = str(v.Get("text"))
		if e.Name == HookThought {
			e.Thinking, e.Duration = e.Duration, 0
		}
	}
	if hookToolStarts[e.Name] || hookToolEnds[e.Name] {
		e.Tool, e.ToolKey = hookTool(e.Name, v)
		e.Result = first(jsonText(v.Get("tool_output")), jsonText(v.Get("result_json")), str(v.Get("output")))
		if e.Name == HookPostToolUseFailure {
			e.Failed = true
			kind := str(v.Get("failure_type")) // timeout, error, permission_denied
			e.Rejected = kind == "permission_denied" || kind == "rejected" || kind == "denied"
			e.Timeout = kind == "timeout"
			said := "the tool call failed"
			if e.Timeout {
				said = "the tool call timed out"
			}
			e.Failure = first(str(v.Get("error_message")), str(v.Get("error")), said)
		}
		if e.Result != "" {
			var rp fastjson.Parser
			if r, err := rp.Parse(e.Result); err == nil {
				resultFacts(object(r), &e.Tool.Facts, nil)
			}
		}
	}
	return e, nil
}

// durationMs reads a duration in milliseconds, fractions kept (Cursor gives
// a tool's as 3113.281).
func durationMs(v *fastjson.Value) (time.Duration, bool) {
	if v == nil || v.Type() != fastjson.TypeNumber {
		ms, ok := integer(v)
		return time.Duration(ms) * time.Millisecond, ok
	}
	f, err := v.Float64()
	if err != nil || f < 0 || f > float64(1<<62)/float64(time.Millisecond) {
		return 0, false
	}
	return time.Duration(f * float64(time.Millisecond)), true
}

// hookUsage reads a generation's token counts, nil when the event gives
// none.
func hookUsage(v *fastjson.Value) *Usage {
	var u Usage
	found := false
	for _, f := range []struct {
		key string
		to  *int64
	}{{"input_tokens", &u.InputTokens}, {"output_tokens", &u.OutputTokens}, {"cache_read_tokens", &u.CacheReadTokens}, {"cache_write_tokens", &u.CacheCreationTokens}} {
		if n, ok := integer(v.Get(f.key)); ok && n >= 0 {
			*f.to, found = n, true
		}
	}
	if !found {
		return nil
	}
	u.InputTokens = max(0, u.InputTokens-u.CacheReadTokens-u.CacheCreationTokens)
	return &u
}

// floatPtr reads a JSON number, nil when there is none.
func floatPtr(v *fastjson.Value) *float64 {
	if v == nil || v.Type() != fastjson.TypeNumber {
		return nil
	}
	f, err := v.Float64()
	if err != nil {
		return nil
	}
	return &f
}

// boolPtr reads a JSON boolean, nil when there is none.
func boolPtr(v *fastjson.Value) *bool {
	if v == nil {
		return nil
	}
	switch v.Type() {
	case fastjson.TypeTrue:
		b := true
		return &b
	case fastjson.TypeFalse:
		b := false
		return &b
	}
	return nil
}

// hookTool reads the tool of a tool event, and the key its before and
// after events share.
func hookTool(name string, v *fastjson.Value) (*ToolCall, string) {
	call := &ToolCall{ID: str(v.Get("tool_use_id"))}
	input := v.Get("tool_input")
	if input != nil && input.Type() == fastjson.TypeString {
		// Some events give the input as a JSON string.
		var p fastjson.Parser
		if parsed, err := p.Parse(str(input)); err == nil {
			input = parsed
			call.Args = string(parsed.MarshalTo(nil))
		}
	} else if input != nil {
		call.Args = string(input.MarshalTo(nil))
	}
	switch name {
	case HookBeforeShell, HookAfterShell:
		call.Source, call.Name = "Shell", "shell"
		call.Facts.Command, call.Facts.WorkingDir = str(v.Get("command")), str(v.Get("cwd"))
	case HookBeforeMCP, HookAfterMCP:
		call.Source, call.Name = "MCP", "mcp"
		call.MCPTool = str(v.Get("tool_name"))
		call.MCPServer = first(str(v.Get("server_name")), str(v.Get("url")), str(v.Get("command")))
	case HookAfterFileEdit:
		call.Source, call.Name = "Edit", "edit"
		call.Facts.Path = str(v.Get("file_path"))
		if edits := v.GetArray("edits"); len(edits) > 0 {
			var added, removed int64
			for _, e := range edits {
				a, r := ChangedLines(str(e.Get("old_string")), str(e.Get("new_string")))
				added, removed = added+a, removed+r
			}
			call.Facts.LinesAdded, call.Facts.LinesRemoved = &added, &removed
		}
	case HookBeforeReadFile:
		call.Source, call.Name = "Read", "read"
		call.Facts.Path = str(v.Get("file_path"))
	default: // preToolUse, postToolUse, postToolUseFailure
		call.Source = str(v.Get("tool_name"))
		call.Name = Canonical(call.Source)
		call.Facts = argFacts(input)
		if call.Facts.WorkingDir == "" {
			call.Facts.WorkingDir = str(v.Get("cwd"))
		}
	}
	return call, HookToolKey(call)
}

// HookToolKey is the key that pairs a tool call's before and after
// events: its tool_use_id, else what it runs (its name, command, working
// directory, MCP tool and arguments).
func HookToolKey(call *ToolCall) string {
	if call.ID != "" {
		return call.ID
	}
	return call.Name + "\x00" + call.Facts.Command + "\x00" + call.Facts.WorkingDir + "\x00" + call.MCPTool + "\x00" + call.Args
}

// jsonText is v as JSON text: a string as it is, anything else marshalled.
func jsonText(v *fastjson.Value) string {
	if v == nil {
		return ""
	}
	if v.Type() == fastjson.TypeString {
		return str(v)
	}
	return string(v.MarshalTo(nil))
}
