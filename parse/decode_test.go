package parse

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func ms(v int64) time.Time { return time.UnixMilli(v) }
func n(v int64) *int64     { return &v }

// compareEvents ignores raw JSON (tested apart) and compares errors by presence.
var compareEvents = cmp.Options{
	cmpopts.IgnoreFields(ToolCall{}, "Args"),
	cmpopts.IgnoreFields(ToolResult{}, "Raw"),
	cmp.Comparer(func(a, b error) bool { return (a == nil) == (b == nil) }),
}

func TestDecodeDialects(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Event
	}{
		// The documented stream-json dialect.
		{
			name: "system init",
			line: `{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/repo","session_id":"s1","model":"Claude 4 Sonnet","permissionMode":"default"}`,
			want: &Init{Header: Header{Line: 1, Type: "system", Subtype: "init", SessionID: "s1"},
				Model: "Claude 4 Sonnet", Cwd: "/repo", PermissionMode: "default", APIKeySource: "login"},
		},
		{
			name: "user prompt",
			line: `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Read the README"}]},"session_id":"s1"}`,
			want: &Prompt{Header: Header{Line: 1, Type: "user", SessionID: "s1"}, Text: "Read the README"},
		},
		{
			name: "thinking delta",
			line: `{"type":"thinking","subtype":"delta","text":"**Planning","session_id":"s1","timestamp_ms":1770823841542}`,
			want: &Thinking{Header: Header{Line: 1, Type: "thinking", Subtype: "delta", SessionID: "s1", Time: ms(1770823841542)}, Text: "**Planning"},
		},
		{
			name: "thinking completed",
			line: `{"type":"thinking","subtype":"completed","session_id":"s1","timestamp_ms":1770823845095}`,
			want: &Thinking{Header: Header{Line: 1, Type: "thinking", Subtype: "completed", SessionID: "s1", Time: ms(1770823845095)}, Done: true},
		},
		{
			name: "assistant mid-turn carries model_call_id",
			line: `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I'll run it."}]},"session_id":"s1","model_call_id":"r-0-ab","timestamp_ms":1770823845357}`,
			want: &Assistant{Header: Header{Line: 1, Type: "assistant", SessionID: "s1", ModelCallID: "r-0-ab", Time: ms(1770823845357)}, Text: "I'll run it."},
		},
		{
			name: "assistant final has neither id nor timestamp",
			line: `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"done"}]},"session_id":"s1"}`,
			want: &Assistant{Header: Header{Line: 1, Type: "assistant", SessionID: "s1"}, Text: "done"},
		},
		{
			name: "assistant partial-output delta",
			line: `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"do"}]},"session_id":"s1","timestamp_ms":1772104286759}`,
			want: &Assistant{Header: Header{Line: 1, Type: "assistant", SessionID: "s1", Time: ms(1772104286759)}, Text: "do", Delta: true},
		},
		{
			name: "tool started, read",
			line: `{"type":"tool_call","subtype":"started","call_id":"toolu_1","tool_call":{"readToolCall":{"args":{"path":"README.md"}}},"session_id":"s1"}`,
			want: &ToolStarted{Header: Header{Line: 1, Type: "tool_call", Subtype: "started", SessionID: "s1"},
				Call: ToolCall{ID: "toolu_1", Name: "read", Source: "readToolCall", Facts: Facts{Path: "README.md"}}},
		},
		{
			name: "tool completed, read with file facts",
			line: `{"type":"tool_call","subtype":"completed","call_id":"toolu_1","tool_call":{"readToolCall":{"args":{"path":"README.md"},"result":{"success":{"content":"# Project","isEmpty":false,"exceededLimit":false,"totalLines":54,"totalChars":1254}}}},"session_id":"s1"}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed", SessionID: "s1"},
				Call:   ToolCall{ID: "toolu_1", Name: "read", Source: "readToolCall", Facts: Facts{Path: "README.md", Lines: n(54), Bytes: n(1254)}},
				Result: ToolResult{Outcome: Success, Kind: "success"}},
		},
		{
			name: "tool completed, write",
			line: `{"type":"tool_call","subtype":"completed","call_id":"t2","tool_call":{"writeToolCall":{"args":{"path":"summary.txt","fileText":"# Summary","toolCallId":"t2"},"result":{"success":{"path":"/repo/summary.txt","linesCreated":19,"fileSize":942}}}},"session_id":"s1"}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed", SessionID: "s1"},
				Call:   ToolCall{ID: "t2", Name: "write", Source: "writeToolCall", Facts: Facts{Path: "summary.txt", Lines: n(19), Bytes: n(942)}},
				Result: ToolResult{Outcome: Success, Kind: "success"}},
		},
		{
			name: "function tool keeps its own name",
			line: `{"type":"tool_call","subtype":"started","call_id":"f1","tool_call":{"function":{"name":"search_web","arguments":"{\"query\":\"otel\"}"}}}`,
			want: &ToolStarted{Header: Header{Line: 1, Type: "tool_call", Subtype: "started"},
				Call: ToolCall{ID: "f1", Name: "search_web", Source: "search_web", Facts: Facts{Query: "otel"}}},
		},
		{
			name: "shell with a call_id holding a newline",
			line: `{"type":"tool_call","subtype":"completed","call_id":"call_A\nfc_B","tool_call":{"shellToolCall":{"args":{"command":"sleep 4","workingDirectory":"","timeout":10000},"result":{"success":{"command":"sleep 4","exitCode":0,"signal":"","stdout":"","stderr":"","executionTime":4162},"isBackground":false}}},"model_call_id":"m-0","session_id":"s1","timestamp_ms":1770823980492}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed", SessionID: "s1", ModelCallID: "m-0", Time: ms(1770823980492)},
				Call:   ToolCall{ID: "call_A\nfc_B", Name: "shell", Source: "shellToolCall", Facts: Facts{Command: "sleep 4", ExitCode: n(0), OutputBytes: n(0), ExecutionMs: n(4162)}},
				Result: ToolResult{Outcome: Success, Kind: "success"}},
		},
		// Newer fields beside the *ToolCall key: the tool is not the first key.
		{
			name: "metadata keys beside the tool, times as strings",
			line: `{"type":"tool_call","subtype":"completed","call_id":"Grep_1","tool_call":{"completedAtMs":"1788170422706","grepToolCall":{"args":{"pattern":"Clear entries","path":"/repo"},"result":{"success":{"pattern":"Clear entries"}}},"hookAdditionalContexts":[],"startedAtMs":"1788170421983","toolCallId":"Grep_1"},"model_call_id":"m-0","timestamp_ms":1788170422353}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed", ModelCallID: "m-0", Time: ms(1788170422353)},
				Call: ToolCall{ID: "Grep_1", Name: "grep", Source: "grepToolCall", Facts: Facts{Pattern: "Clear entries", Path: "/repo"},
					StartedAt: ms(1788170421983), CompletedAt: ms(1788170422706)},
				Result: ToolResult{Outcome: Success, Kind: "success"}},
		},
		{
			name: "call id from toolCallId when call_id is absent",
			line: `{"type":"tool_call","subtype":"started","tool_call":{"hookAdditionalContexts":[],"toolCallId":"Read_3","readToolCall":{"args":{"path":"a.go"}},"startedAtMs":1788170425983}}`,
			want: &ToolStarted{Header: Header{Line: 1, Type: "tool_call", Subtype: "started"},
				Call: ToolCall{ID: "Read_3", Name: "read", Source: "readToolCall", Facts: Facts{Path: "a.go"}, StartedAt: ms(1788170425983)}},
		},
		{
			name: "shell failure",
			line: `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"go test ./..."},"result":{"failure":{"command":"go test ./...","exitCode":1,"stdout":"FAIL","stderr":""}}}}}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed"},
				Call:   ToolCall{ID: "c", Name: "shell", Source: "shellToolCall", Facts: Facts{Command: "go test ./...", ExitCode: n(1), OutputBytes: n(4)}},
				Result: ToolResult{Outcome: Failed, Kind: "failure"}},
		},
		{
			name: "shell success with a non-zero exit code is an error",
			line: `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"false"},"result":{"success":{"exitCode":2}}}}}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed"},
				Call:   ToolCall{ID: "c", Name: "shell", Source: "shellToolCall", Facts: Facts{Command: "false", ExitCode: n(2)}},
				Result: ToolResult{Outcome: Failed, Kind: "success"}},
		},
		{
			name: "rejected shell",
			line: `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"result":{"rejected":{"command":"rm -rf /","reason":"not on the allowlist"}}}}}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed"},
				Call:   ToolCall{ID: "c", Name: "shell", Source: "shellToolCall", Facts: Facts{Command: "rm -rf /"}},
				Result: ToolResult{Outcome: Rejected, Kind: "rejected", Message: "not on the allowlist"}},
		},
		{
			name: "permission denied is a rejection",
			line: `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"cat x"},"result":{"permissionDenied":{"command":"cat x","error":"Command blocked by permissions configuration"}}}}}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed"},
				Call:   ToolCall{ID: "c", Name: "shell", Source: "shellToolCall", Facts: Facts{Command: "cat x"}},
				Result: ToolResult{Outcome: Rejected, Kind: "permissionDenied", Message: "Command blocked by permissions configuration"}},
		},
		{
			name: "a write permission denial is a rejection",
			line: `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"editToolCall":{"args":{"path":".env"},"result":{"writePermissionDenied":{"path":"/repo/.env","error":"Writing .env is blocked by the workspace's permissions","isReadonly":false}}}}}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed"},
				Call:   ToolCall{ID: "c", Name: "edit", Source: "editToolCall", Facts: Facts{Path: ".env"}},
				Result: ToolResult{Outcome: Rejected, Kind: "writePermissionDenied", Message: "Writing .env is blocked by the workspace's permissions"}},
		},
		{
			name: "a read permission denial without a reason is a rejection",
			line: `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"readToolCall":{"args":{"path":"/etc/shadow"},"result":{"readPermissionDenied":{}}}}}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed"},
				Call:   ToolCall{ID: "c", Name: "read", Source: "readToolCall", Facts: Facts{Path: "/etc/shadow"}},
				Result: ToolResult{Outcome: Rejected, Kind: "readPermissionDenied"}},
		},
		{
			name: "a permission denial that is its reason",
			line: `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"git push"},"result":{"permissionDenied":"Shell(git push) is denied"}}}}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed"},
				Call:   ToolCall{ID: "c", Name: "shell", Source: "shellToolCall", Facts: Facts{Command: "git push"}},
				Result: ToolResult{Outcome: Rejected, Kind: "permissionDenied", Message: "Shell(git push) is denied"}},
		},
		{
			name: "error result",
			line: `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"readToolCall":{"args":{"path":"missing.go"},"result":{"error":{"errorMessage":"File not found"}}}}}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed"},
				Call:   ToolCall{ID: "c", Name: "read", Source: "readToolCall", Facts: Facts{Path: "missing.go"}},
				Result: ToolResult{Outcome: Failed, Kind: "error", Message: "File not found"}},
		},
		{
			name: "spawn error",
			line: `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"ls"},"result":{"spawnError":{"error":"The shell command returned no exit status"}}}}}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed"},
				Call:   ToolCall{ID: "c", Name: "shell", Source: "shellToolCall", Facts: Facts{Command: "ls"}},
				Result: ToolResult{Outcome: Failed, Kind: "spawnError", Message: "The shell command returned no exit status"}},
		},
		{
			name: "edit with line counts",
			line: `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"editToolCall":{"args":{"path":"a.go"},"result":{"success":{"linesAdded":3,"linesRemoved":1}}}}}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed"},
				Call:   ToolCall{ID: "c", Name: "edit", Source: "editToolCall", Facts: Facts{Path: "a.go", LinesAdded: n(3), LinesRemoved: n(1)}},
				Result: ToolResult{Outcome: Success, Kind: "success"}},
		},
		{
			name: "mcp tool keeps the MCP tool's name and its server",
			line: `{"type":"tool_call","subtype":"started","call_id":"m","tool_call":{"mcpToolCall":{"args":{"toolName":"create_issue","providerIdentifier":"github","args":{}}}}}`,
			want: &ToolStarted{Header: Header{Line: 1, Type: "tool_call", Subtype: "started"},
				Call: ToolCall{ID: "m", Name: "mcp", Source: "mcpToolCall", MCPTool: "create_issue", MCPServer: "github"}},
		},
		{
			name: "an MCP result with isError is an error",
			line: `{"type":"tool_call","subtype":"completed","call_id":"m","tool_call":{"mcpToolCall":{"args":{"toolName":"create_issue","providerIdentifier":"github"},"result":{"success":{"content":[{"type":"text","text":"403: resource not accessible"}],"isError":true}}}}}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed"},
				Call:   ToolCall{ID: "m", Name: "mcp", Source: "mcpToolCall", MCPTool: "create_issue", MCPServer: "github"},
				Result: ToolResult{Outcome: Failed, Kind: "tool_error", Message: "403: resource not accessible"}},
		},
		{
			name: "semSearchToolCall, as real agents print it, is semantic_search",
			line: `{"type":"tool_call","subtype":"started","call_id":"q","tool_call":{"semSearchToolCall":{"args":{"query":"where is auth checked"}}}}`,
			want: &ToolStarted{Header: Header{Line: 1, Type: "tool_call", Subtype: "started"},
				Call: ToolCall{ID: "q", Name: "semantic_search", Source: "semSearchToolCall", Facts: Facts{Query: "where is auth checked"}}},
		},
		{
			name: "webSearchToolCall is web_search",
			line: `{"type":"tool_call","subtype":"started","call_id":"w","tool_call":{"webSearchToolCall":{"args":{"searchTerm":"go 1.26 release notes"}}}}`,
			want: &ToolStarted{Header: Header{Line: 1, Type: "tool_call", Subtype: "started"},
				Call: ToolCall{ID: "w", Name: "web_search", Source: "webSearchToolCall", Facts: Facts{Query: "go 1.26 release notes"}}},
		},
		{
			name: "listMcpResourcesToolCall and askQuestionToolCall",
			line: `{"type":"tool_call","subtype":"started","call_id":"l","tool_call":{"listMcpResourcesToolCall":{"args":{}}}}`,
			want: &ToolStarted{Header: Header{Line: 1, Type: "tool_call", Subtype: "started"},
				Call: ToolCall{ID: "l", Name: "list_mcp_resources", Source: "listMcpResourcesToolCall"}},
		},
		{
			name: "a task says which subagent it ran, and its result carries the subagent's steps",
			line: `{"type":"tool_call","subtype":"completed","call_id":"t","tool_call":{"taskToolCall":{"args":{"description":"List docs","prompt":"List markdown files","subagentType":{"explore":{}},"model":"composer-2","agentId":"agent-7"},` +
				`"result":{"success":{"conversationSteps":[{"thinkingMessage":{"text":"look"}},{"toolCall":{"globToolCall":{"args":{"globPattern":"**/*.md"},"result":{"success":{"totalFiles":2}}}}},{"assistantMessage":{"text":"two files"}}],"agentId":"agent-7"}}}}}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed"},
				Call: ToolCall{ID: "t", Name: "task", Source: "taskToolCall", Subagent: &Subagent{ID: "agent-7", Type: "explore", Model: "composer-2",
					Description: "List docs", Prompt: "List markdown files", Steps: []Step{
						{Kind: "thinkingMessage", Think: true, Text: "look"},
						{Kind: "toolCall", Tool: &ToolCall{Name: "glob", Source: "globToolCall", Facts: Facts{Pattern: "**/*.md", Files: n(2)}},
							Result: &ToolResult{Outcome: Success, Kind: "success"}},
						{Kind: "assistantMessage", Text: "two files"},
					}}},
				Result: ToolResult{Outcome: Success, Kind: "success"}},
		},
		{
			name: "hardTimeout and localExecutionTimeMs are tool facts",
			line: `{"type":"tool_call","subtype":"completed","call_id":"s","tool_call":{"shellToolCall":{"args":{"command":"make","hardTimeout":600000},"result":{"success":{"exitCode":0,"executionTime":5120,"localExecutionTimeMs":4890}}}}}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed"},
				Call:   ToolCall{ID: "s", Name: "shell", Source: "shellToolCall", Facts: Facts{Command: "make", HardTimeout: n(600000), ExitCode: n(0), ExecutionMs: n(5120), LocalExecMs: n(4890)}},
				Result: ToolResult{Outcome: Success, Kind: "success"}},
		},
		{
			name: "an interaction query: the agent asks for approval",
			line: `{"type":"interaction_query","subtype":"request","id":41,"query":{"shellRequestQuery":{"command":"rm -rf build"}},"session_id":"s1","timestamp_ms":1790000000000}`,
			want: &Interaction{Header: Header{Line: 1, Type: "interaction_query", Subtype: "request", SessionID: "s1", Time: ms(1790000000000)},
				Kind: "shellRequestQuery", ID: "41", Command: "rm -rf build"},
		},
		{
			name: "an edit's approval asked: the file it is about",
			line: `{"type":"interaction_query","subtype":"request","id":4,"query":{"editRequestQuery":{"path":"/work/app/queue.go"}},"session_id":"s1","timestamp_ms":1790000000000}`,
			want: &Interaction{Header: Header{Line: 1, Type: "interaction_query", Subtype: "request", SessionID: "s1", Time: ms(1790000000000)},
				Kind: "editRequestQuery", ID: "4", Path: "/work/app/queue.go"},
		},
		{
			name: "an interaction response",
			line: `{"type":"interaction_query","subtype":"response","id":41,"response":{"shellRequestResponse":{"rejected":{"reason":"not now"}}},"session_id":"s1","timestamp_ms":1790000004000}`,
			want: &Interaction{Header: Header{Line: 1, Type: "interaction_query", Subtype: "response", SessionID: "s1", Time: ms(1790000004000)},
				Kind: "shellRequestResponse", ID: "41", Response: true, Outcome: "rejected"},
		},
		{
			name: "a background shell timed out",
			line: `{"type":"system","subtype":"background_shell_timeout","call_id":"c9","message":"npm run dev still running after 10m","session_id":"s1","timestamp_ms":1790000009000}`,
			want: &Notice{Header: Header{Line: 1, Type: "system", Subtype: "background_shell_timeout", SessionID: "s1", Time: ms(1790000009000)},
				Message: "npm run dev still running after 10m", CallID: "c9"},
		},
		{
			name: "unknown tool key becomes snake case",
			line: `{"type":"tool_call","subtype":"started","call_id":"x","tool_call":{"readLintsToolCall":{"args":{"paths":["a.go"]}}}}`,
			want: &ToolStarted{Header: Header{Line: 1, Type: "tool_call", Subtype: "started"},
				Call: ToolCall{ID: "x", Name: "read_lints", Source: "readLintsToolCall"}},
		},
		{
			name: "updateTodos is todo",
			line: `{"type":"tool_call","subtype":"started","call_id":"x","tool_call":{"updateTodosToolCall":{"args":{"todos":[]}}}}`,
			want: &ToolStarted{Header: Header{Line: 1, Type: "tool_call", Subtype: "started"},
				Call: ToolCall{ID: "x", Name: "todo", Source: "updateTodosToolCall"}},
		},
		{
			name: "result with usage",
			line: `{"type":"result","subtype":"success","duration_ms":13039,"duration_api_ms":13000,"is_error":false,"result":"done","session_id":"s1","request_id":"r1","usage":{"inputTokens":1200,"outputTokens":85,"cacheReadTokens":900,"cacheWriteTokens":30}}`,
			want: &Result{Header: Header{Line: 1, Type: "result", Subtype: "success", SessionID: "s1"},
				Text: "done", DurationMs: 13039, DurationAPIMs: 13000, RequestID: "r1",
				Usage: &Usage{InputTokens: 1200, OutputTokens: 85, CacheReadTokens: 900, CacheCreationTokens: 30}},
		},
		{
			name: "result error",
			line: `{"type":"result","subtype":"error","error":"Request timed out","session_id":"s1","request_id":"r1","is_error":true}`,
			want: &Result{Header: Header{Line: 1, Type: "result", Subtype: "error", SessionID: "s1"},
				IsError: true, Error: "Request timed out", RequestID: "r1"},
		},
		{
			name: "connection",
			line: `{"type":"connection","subtype":"reconnecting","session_id":"s1","timestamp_ms":1770823900000}`,
			want: &Connection{Header: Header{Line: 1, Type: "connection", Subtype: "reconnecting", SessionID: "s1", Time: ms(1770823900000)}},
		},
		{
			name: "retry",
			line: `{"type":"retry","subtype":"starting","attempt":2,"session_id":"s1"}`,
			want: &Retry{Header: Header{Line: 1, Type: "retry", Subtype: "starting", SessionID: "s1"}, Attempt: 2},
		},
		{
			name: "error event",
			line: `{"type":"error","message":"An error occurred while processing the request"}`,
			want: &Error{Header: Header{Line: 1, Type: "error"}, Message: "An error occurred while processing the request"},
		},
		// The hyphenated dialect.
		{
			name: "hyphenated init",
			line: `{"type":"system","subtype":"init","session_id":"abc-123","request_id":"req_abc123","model":"sonnet-4","workspace":"/home/user/project"}`,
			want: &Init{Header: Header{Line: 1, Type: "system", Subtype: "init", SessionID: "abc-123"},
				Model: "sonnet-4", Cwd: "/home/user/project", RequestID: "req_abc123"},
		},
		{
			name: "hyphenated assistant delta has top-level text",
			line: `{"type":"assistant","text":"The ","timestamp_ms":1705123456790}`,
			want: &Assistant{Header: Header{Line: 1, Type: "assistant", Time: ms(1705123456790)}, Text: "The ", Delta: true},
		},
		{
			name: "hyphenated tool started",
			line: `{"type":"tool-call-started","tool_name":"Shell","tool_call_id":"call_abc123","parameters":{"command":"ls -la","description":"List directory contents"}}`,
			want: &ToolStarted{Header: Header{Line: 1, Type: "tool-call-started"},
				Call: ToolCall{ID: "call_abc123", Name: "shell", Source: "Shell", Facts: Facts{Command: "ls -la"}}},
		},
		{
			name: "hyphenated tool completed",
			line: `{"type":"tool-call-completed","tool_name":"Shell","tool_call_id":"call_abc123","result":{"success":true,"output":"total 32","exit_code":0},"duration_ms":156}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool-call-completed"},
				Call:   ToolCall{ID: "call_abc123", Name: "shell", Source: "Shell", Duration: 156 * time.Millisecond, Facts: Facts{ExitCode: n(0), OutputBytes: n(8)}},
				Result: ToolResult{Outcome: Success}},
		},
		{
			name: "hyphenated failed tool",
			line: `{"type":"tool-call-completed","tool_name":"StrReplace","tool_call_id":"e1","result":{"success":false,"error":"old_string not found"},"duration_ms":12}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool-call-completed"},
				Call:   ToolCall{ID: "e1", Name: "edit", Source: "StrReplace", Duration: 12 * time.Millisecond},
				Result: ToolResult{Outcome: Failed, Kind: "error", Message: "old_string not found"}},
		},
		{
			name: "hyphenated unknown tool",
			line: `{"type":"tool-call-started","tool_name":"EditNotebook","tool_call_id":"n1","parameters":{}}`,
			want: &ToolStarted{Header: Header{Line: 1, Type: "tool-call-started"},
				Call: ToolCall{ID: "n1", Name: "edit_notebook", Source: "EditNotebook"}},
		},
		// The payload-wrapped dialect.
		{
			name: "payload init",
			line: `{"type": "system", "subtype": "init", "payload": {}}`,
			want: &Init{Header: Header{Line: 1, Type: "system", Subtype: "init"}},
		},
		{
			name: "payload user",
			line: `{"type": "user", "payload": {"prompt": "Write a simple Hello World program in Python"}}`,
			want: &Prompt{Header: Header{Line: 1, Type: "user"}, Text: "Write a simple Hello World program in Python"},
		},
		{
			name: "payload thinking without subtype",
			line: `{"type": "thinking", "payload": {"content": "I'll create a Hello World program..."}}`,
			want: &Thinking{Header: Header{Line: 1, Type: "thinking"}, Text: "I'll create a Hello World program..."},
		},
		{
			name: "payload assistant",
			line: `{"type": "assistant", "payload": {"message": {"content": [{"type": "text", "text": "I'll create it."}]}}}`,
			want: &Assistant{Header: Header{Line: 1, Type: "assistant"}, Text: "I'll create it."},
		},
		{
			name: "payload assistant with string content",
			line: `{"type": "assistant", "payload": {"message": {"content": "plain"}}}`,
			want: &Assistant{Header: Header{Line: 1, Type: "assistant"}, Text: "plain"},
		},
		{
			name: "payload tool started",
			line: `{"type": "tool_call", "subtype": "started", "payload": {"toolCall": {"id": "shell-1", "shellToolCall": {"name": "shell", "args": {"command": "python hello_world.py"}}}}}`,
			want: &ToolStarted{Header: Header{Line: 1, Type: "tool_call", Subtype: "started"},
				Call: ToolCall{ID: "shell-1", Name: "shell", Source: "shellToolCall", Facts: Facts{Command: "python hello_world.py"}}},
		},
		{
			name: "payload write file with its arguments in the body",
			line: `{"type": "tool_call", "subtype": "started", "payload": {"toolCall": {"id": "write-file-1", "writeFileToolCall": {"path": "hello_world.py", "contents": "print('Hello, World!')"}}}}`,
			want: &ToolStarted{Header: Header{Line: 1, Type: "tool_call", Subtype: "started"},
				Call: ToolCall{ID: "write-file-1", Name: "write", Source: "writeFileToolCall", Facts: Facts{Path: "hello_world.py"}}},
		},
		{
			name: "payload tool completed names no tool",
			line: `{"type": "tool_call", "subtype": "completed", "payload": {"toolCall": {"id": "shell-1", "result": {"exitCode": 0, "stdout": "Hello, World!\n", "stderr": ""}}}}`,
			want: &ToolCompleted{Header: Header{Line: 1, Type: "tool_call", Subtype: "completed"},
				Call:   ToolCall{ID: "shell-1", Facts: Facts{ExitCode: n(0), OutputBytes: n(14)}},
				Result: ToolResult{Outcome: Success}},
		},
		{
			name: "payload result error",
			line: `{"type": "result", "subtype": "error", "exitCode": 1, "payload": {"exitCode": 1, "is_error": true}}`,
			want: &Result{Header: Header{Line: 1, Type: "result", Subtype: "error"}, IsError: true},
		},
		{
			name: "payload client raw event is kept as unknown",
			line: `{"type": "raw", "data": "<unparsed line content>"}`,
			want: &Unknown{Header: Header{Line: 1, Type: "raw"}, Size: 50},
		},
		{
			name: "a system subtype of no known meaning is a notice",
			line: `{"type":"system","subtype":"status","session_id":"s1"}`,
			want: &Notice{Header: Header{Line: 1, Type: "system", Subtype: "status", SessionID: "s1"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decode([]byte(tt.line), 1)
			if diff := cmp.Diff(tt.want, got, compareEvents); diff != "" {
				t.Errorf("Decode() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeMalformed(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Event
	}{
		{"plain text", "hello world", &Invalid{Header: Header{Line: 7}, Size: 11, Err: ErrNotObject}},
		{"truncated JSON", `{"type":"assistant","mess`, &Invalid{Header: Header{Line: 7}, Size: 25, Err: ErrNotObject}},
		{"JSON array", `[1,2]`, &Invalid{Header: Header{Line: 7}, Size: 5, Err: ErrNotObject}},
		{"JSON string", `"text"`, &Invalid{Header: Header{Line: 7}, Size: 6, Err: ErrNotObject}},
		{"trailing garbage", `{"type":"user"} x`, &Invalid{Header: Header{Line: 7}, Size: 17, Err: ErrNotObject}},
		{"invalid UTF-8 outside a string", "{\"type\":\xff}", &Invalid{Header: Header{Line: 7}, Size: 10, Err: ErrNotObject}},
		{"type of the wrong kind", `{"type":5,"session_id":"s"}`, &Unknown{Header: Header{Line: 7, SessionID: "s"}, Size: 27}},
		{"no type", `{"hello":"world"}`, &Unknown{Header: Header{Line: 7}, Size: 17}},
		{"empty object", `{}`, &Unknown{Header: Header{Line: 7}, Size: 2}},
		{
			"invalid UTF-8 inside a string is replaced",
			"{\"type\":\"user\",\"message\":{\"content\":\"a\xffb\"}}",
			&Prompt{Header: Header{Line: 7, Type: "user"}, Text: "a\ufffdb"},
		},
		{
			"timestamp as a string",
			`{"type":"thinking","subtype":"delta","text":"x","timestamp_ms":"1770823434041"}`,
			&Thinking{Header: Header{Line: 7, Type: "thinking", Subtype: "delta", Time: ms(1770823434041)}, Text: "x"},
		},
		{
			"timestamp that is not a number is absent",
			`{"type":"thinking","subtype":"delta","text":"x","timestamp_ms":"soon"}`,
			&Thinking{Header: Header{Line: 7, Type: "thinking", Subtype: "delta"}, Text: "x"},
		},
		{
			"negative timestamp is absent",
			`{"type":"thinking","subtype":"delta","text":"x","timestamp_ms":-5}`,
			&Thinking{Header: Header{Line: 7, Type: "thinking", Subtype: "delta"}, Text: "x"},
		},
		{
			"tool_call that is not an object",
			`{"type":"tool_call","subtype":"started","call_id":"c","tool_call":"oops"}`,
			&ToolStarted{Header: Header{Line: 7, Type: "tool_call", Subtype: "started"}, Call: ToolCall{ID: "c"}},
		},
		{
			"tool_call without any tool key",
			`{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"toolCallId":"c","startedAtMs":"1"}}`,
			&ToolStarted{Header: Header{Line: 7, Type: "tool_call", Subtype: "started"}, Call: ToolCall{ID: "c", StartedAt: ms(1)}},
		},
		{
			"tool_call with an unknown subtype",
			`{"type":"tool_call","subtype":"progress","call_id":"c"}`,
			&Unknown{Header: Header{Line: 7, Type: "tool_call", Subtype: "progress"}, Size: 55},
		},
		{
			"message of the wrong shape",
			`{"type":"user","message":[1,2,3]}`,
			&Prompt{Header: Header{Line: 7, Type: "user"}},
		},
		{
			"byte order mark",
			"\ufeff{\"type\":\"connection\",\"subtype\":\"reconnected\"}",
			&Connection{Header: Header{Line: 7, Type: "connection", Subtype: "reconnected"}},
		},
		{
			"CR left at the end",
			"{\"type\":\"retry\",\"subtype\":\"starting\"}\r",
			&Retry{Header: Header{Line: 7, Type: "retry", Subtype: "starting"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decode([]byte(tt.line), 7)
			if diff := cmp.Diff(tt.want, got, compareEvents); diff != "" {
				t.Errorf("Decode(%q) mismatch (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

// The raw arguments and results are what content capture records.
func TestDecodeKeepsRawArgsAndResult(t *testing.T) {
	line := `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"echo hi"},"result":{"success":{"exitCode":0,"stdout":"hi\n"}}}}}`
	ev := Decode([]byte(line), 1).(*ToolCompleted)
	if got, want := ev.Call.Args, `{"command":"echo hi"}`; got != want {
		t.Errorf("Args = %s, want %s", got, want)
	}
	if got, want := ev.Result.Raw, `{"success":{"exitCode":0,"stdout":"hi\n"}}`; got != want {
		t.Errorf("Result.Raw = %s, want %s", got, want)
	}

	fn := Decode([]byte(`{"type":"tool_call","subtype":"started","call_id":"f","tool_call":{"function":{"name":"f","arguments":"{\"a\":1}"}}}`), 1).(*ToolStarted)
	if got, want := fn.Call.Args, `{"a":1}`; got != want {
		t.Errorf("function Args = %s, want %s (the JSON inside the string)", got, want)
	}
	if !json.Valid([]byte(fn.Call.Args)) {
		t.Errorf("function Args is not JSON: %s", fn.Call.Args)
	}
}

// Without content, a decoder still reads every fact from the arguments
// and the result, and the result event's text.
func TestDecoderWithoutContent(t *testing.T) {
	stream := `{"type":"thinking","subtype":"delta","text":"plan"}
{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}}
{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"echo hi"},"result":{"success":{"exitCode":3,"stdout":"hi\n"}}}}}
{"type":"result","subtype":"error","is_error":true,"result":"tests fail"}`
	dec := NewDecoder(strings.NewReader(stream), WithoutContent())
	var events []Event
	eachEvent(t, dec, func(ev Event) { events = append(events, ev) })
	if len(events) != 4 {
		t.Fatalf("%d events, want 4", len(events))
	}
	if th, a := events[0].(*Thinking), events[1].(*Assistant); th.Text != "" || a.Text != "" {
		t.Errorf("thinking %q, assistant %q; want no text", th.Text, a.Text)
	}
	done := events[2].(*ToolCompleted)
	if done.Call.Args != "" || done.Result.Raw != "" {
		t.Errorf("Args %q, Raw %q; want both empty", done.Call.Args, done.Result.Raw)
	}
	if f := done.Call.Facts; f.Command != "echo hi" || f.ExitCode == nil || *f.ExitCode != 3 || f.OutputBytes == nil || *f.OutputBytes != 3 {
		t.Errorf("facts %+v; want command echo hi, exit code 3, 3 output bytes", f)
	}
	if done.Result.Outcome != Failed {
		t.Errorf("outcome %q, want %q", done.Result.Outcome, Failed)
	}
	if r := events[3].(*Result); r.Text != "tests fail" || !r.IsError {
		t.Errorf("result %+v, want the error's text", r)
	}
}

func TestCanonical(t *testing.T) {
	for source, want := range map[string]string{
		"shellToolCall": "shell", "Shell": "shell", "readToolCall": "read", "Read": "read",
		"writeToolCall": "write", "writeFileToolCall": "write", "Write": "write",
		"editToolCall": "edit", "strReplaceToolCall": "edit", "applyPatchToolCall": "edit",
		"StrReplace": "edit", "Edit": "edit", "ApplyPatch": "edit",
		"deleteToolCall": "delete", "Delete": "delete", "lsToolCall": "ls", "LS": "ls",
		"grepToolCall": "grep", "Grep": "grep", "globToolCall": "glob", "Glob": "glob",
		"todoToolCall": "todo", "updateTodosToolCall": "todo", "TodoWrite": "todo",
		"mcpToolCall": "mcp", "webFetchToolCall": "web_fetch", "WebFetch": "web_fetch",
		"semanticSearchToolCall": "semantic_search", "SemanticSearch": "semantic_search",
		"fooBarToolCall": "foo_bar", "readLintsToolCall": "read_lints", "HTTPRequest": "http_request",
		"listMcpResourcesToolCall": "list_mcp_resources", "v2ThingToolCall": "v2_thing",
	} {
		if got := Canonical(source); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", source, got, want)
		}
	}
}

// Decode turns one line (without its line ending) into an event, as a
// Decoder does. num is the line's 1-based number.
func Decode(line []byte, num int) Event {
	var l lineDecoder
	return l.decode(line, num)
}
