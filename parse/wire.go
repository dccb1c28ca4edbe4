package parse

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// wire is the union of the top-level fields every dialect uses. Parts whose
// shape differs between dialects stay raw and are decoded where their type
// is known.
type wire struct {
	Type        string  `json:"type"`
	Subtype     string  `json:"subtype"`
	SessionID   string  `json:"session_id"`
	ModelCallID string  `json:"model_call_id"`
	TimestampMs number  `json:"timestamp_ms"`
	CallID      *string `json:"call_id"`

	// system/init
	Model          string `json:"model"`
	Cwd            string `json:"cwd"`
	Workspace      string `json:"workspace"`
	PermissionMode string `json:"permissionMode"`
	APIKeySource   string `json:"apiKeySource"`
	RequestID      string `json:"request_id"`

	// user, assistant, thinking: message is an object there and a string
	// in error events; text is a delta.
	Message json.RawMessage `json:"message"`
	Text    *string         `json:"text"`
	Prompt  string          `json:"prompt"`  // payload dialect user
	Content json.RawMessage `json:"content"` // payload dialect thinking

	// tool_call
	ToolCall        json.RawMessage `json:"tool_call"`
	PayloadToolCall json.RawMessage `json:"toolCall"`     // payload dialect
	ToolName        string          `json:"tool_name"`    // hyphenated dialect
	ToolCallID      *string         `json:"tool_call_id"` // hyphenated dialect
	Parameters      json.RawMessage `json:"parameters"`   // hyphenated dialect

	// result (a string in result events, an object in hyphenated completions)
	Result        json.RawMessage `json:"result"`
	IsError       bool            `json:"is_error"`
	ExitCode      *number         `json:"exitCode"`
	DurationMs    number          `json:"duration_ms"`
	DurationAPIMs number          `json:"duration_api_ms"`
	Usage         *wireUsage      `json:"usage"`
	Error         json.RawMessage `json:"error"`

	// retry
	Attempt number `json:"attempt"`

	// payload dialect: the same fields one level down
	Payload json.RawMessage `json:"payload"`
}

// wireUsage accepts both the camelCase cursor-agent prints and snake_case.
type wireUsage struct {
	InputTokens          number `json:"inputTokens"`
	OutputTokens         number `json:"outputTokens"`
	CacheReadTokens      number `json:"cacheReadTokens"`
	CacheWriteTokens     number `json:"cacheWriteTokens"`
	InputTokensSnake     number `json:"input_tokens"`
	OutputTokensSnake    number `json:"output_tokens"`
	CacheReadSnake       number `json:"cache_read_input_tokens"`
	CacheCreationSnake   number `json:"cache_creation_input_tokens"`
	CacheCreationTokens2 number `json:"cacheCreationTokens"`
}

func (u *wireUsage) usage() *Usage {
	if u == nil {
		return nil
	}
	first := func(ns ...number) int64 {
		for _, n := range ns {
			if n.set {
				return n.v
			}
		}
		return 0
	}
	return &Usage{
		InputTokens:         first(u.InputTokens, u.InputTokensSnake),
		OutputTokens:        first(u.OutputTokens, u.OutputTokensSnake),
		CacheReadTokens:     first(u.CacheReadTokens, u.CacheReadSnake),
		CacheCreationTokens: first(u.CacheWriteTokens, u.CacheCreationTokens2, u.CacheCreationSnake),
	}
}

// number is an integer the stream may write as a JSON number or as a string
// of digits (protobuf's JSON form of int64, as in startedAtMs).
type number struct {
	v   int64
	set bool
}

func (n *number) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(b, `"`)
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		n.v, n.set = v, true
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return nil // not a number: treated as absent, never fatal
	}
	n.v, n.set = int64(f), true
	return nil
}

func (n number) ptr() *int64 {
	if !n.set {
		return nil
	}
	v := n.v
	return &v
}

// millis turns a Unix-milliseconds number into a time; zero when absent.
func (n number) millis() time.Time {
	if !n.set || n.v <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(n.v)
}
