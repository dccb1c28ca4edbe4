package parse

import (
	"testing"
	"time"
)

// Hook events as Cursor hands them: the common fields, each tool event's
// tool and the key that pairs its before and after, results' facts.
func TestDecodeHook(t *testing.T) {
	tests := []struct {
		name, line string
		check      func(HookEvent) bool
	}{
		{"common fields", `{"hook_event_name":"stop","conversation_id":"c","generation_id":"g","model":"gpt-5","cursor_version":"2.4.21","workspace_roots":["/repo","/other"],"status":"aborted"}`,
			func(e HookEvent) bool {
				return e.Name == "stop" && e.ConversationID == "c" && e.GenerationID == "g" && e.Model == "gpt-5" && e.CursorVersion == "2.4.21" && e.Workspace == "/repo" && e.Status == "aborted"
			}},
		{"a generic tool call", `{"hook_event_name":"postToolUse","conversation_id":"c","tool_name":"Shell","tool_input":{"command":"make","working_directory":"/w"},"tool_use_id":"t1","tool_output":"{\"exitCode\":2,\"stdout\":\"x\"}","duration":1500}`,
			func(e HookEvent) bool {
				return e.EndsTool() && e.Tool.Name == "shell" && e.Tool.Facts.Command == "make" && e.Tool.Facts.WorkingDir == "/w" &&
					*e.Tool.Facts.ExitCode == 2 && e.ToolKey == "t1" && e.Duration == 1500*time.Millisecond
			}},
		{"a shell event, keyed by its command", `{"hook_event_name":"beforeShellExecution","conversation_id":"c","command":"ls -la","cwd":"/w"}`,
			func(e HookEvent) bool {
				return e.StartsTool() && e.Tool.Name == "shell" && e.Tool.Facts.Command == "ls -la" && e.ToolKey != "" && e.Tool.ID == ""
			}},
		{"an MCP event, its input a JSON string", `{"hook_event_name":"afterMCPExecution","conversation_id":"c","tool_name":"create_issue","tool_input":"{\"title\":\"x\"}","result_json":"{\"isError\":false}","url":"https://mcp.example","duration":250}`,
			func(e HookEvent) bool {
				return e.Tool.Name == "mcp" && e.Tool.MCPTool == "create_issue" && e.Tool.MCPServer == "https://mcp.example" && e.Tool.Args == `{"title":"x"}` && e.Duration == 250*time.Millisecond
			}},
		{"a failure, a refusal", `{"hook_event_name":"postToolUseFailure","conversation_id":"c","tool_name":"Shell","tool_input":{"command":"rm -rf /"},"tool_use_id":"t2","error_message":"denied by user","failure_type":"permission_denied"}`,
			func(e HookEvent) bool { return e.Failed && e.Rejected && e.Failure == "denied by user" }},
		{"a failure, a timeout", `{"hook_event_name":"postToolUseFailure","conversation_id":"c","tool_name":"Shell","tool_input":{"command":"sleep 99"},"tool_use_id":"t3","failure_type":"timeout","duration":30000}`,
			func(e HookEvent) bool {
				return e.Failed && e.Timeout && !e.Rejected && e.Failure == "the tool call timed out"
			}},
		{"a failure, an error", `{"hook_event_name":"postToolUseFailure","conversation_id":"c","tool_name":"Read","tool_input":{"file_path":"x"},"tool_use_id":"t4","error_message":"File not found: x","failure_type":"error"}`,
			func(e HookEvent) bool {
				return e.Failed && !e.Timeout && !e.Rejected && e.Failure == "File not found: x"
			}},
		{"behind a byte-order mark", "\ufeff" + `{"hook_event_name":"sessionEnd","conversation_id":"c","reason":"aborted"}`,
			func(e HookEvent) bool {
				return e.Name == "sessionEnd" && e.ConversationID == "c" && e.Status == "aborted"
			}},
		{"thinking", `{"hook_event_name":"afterAgentThought","conversation_id":"c","generation_id":"g","text":"hmm","duration_ms":900}`,
			func(e HookEvent) bool {
				return e.Text == "hmm" && e.Thinking == 900*time.Millisecond && e.Duration == 0
			}},
		{"a session named by session_id", `{"hook_event_name":"sessionEnd","session_id":"s-1","reason":"window_close"}`,
			func(e HookEvent) bool { return e.ConversationID == "s-1" && e.Status == "window_close" }},
	}
	for _, tt := range tests {
		e, err := DecodeHook([]byte(tt.line))
		if err != nil || !tt.check(e) {
			t.Errorf("%s: %+v (%v)", tt.name, e, err)
		}
	}
	for _, bad := range []string{"", "[]", "{", `"x"`, "\ufeff", "\ufeff\ufeff{}", "\xef\xbb{}"} {
		if _, err := DecodeHook([]byte(bad)); err == nil {
			t.Errorf("DecodeHook(%q) took it", bad)
		}
	}
}
