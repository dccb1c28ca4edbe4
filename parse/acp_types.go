package parse

import "encoding/json"

// The ACP fields the trace reads, as agentclientprotocol/agent-client-protocol
// schema/v1 names them. Every field is optional here: a message missing
// one is traced without it.

// ACPPrompt is session/prompt's params.
type ACPPrompt struct {
	SessionID string            `json:"sessionId"`
	Prompt    []ACPContentBlock `json:"prompt"`
	Meta      struct {
		Traceparent string `json:"traceparent"`
		Tracestate  string `json:"tracestate"`
	} `json:"_meta"`
}

// ACPContentBlock is a prompt's or a chunk's content.
type ACPContentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
	URI  string `json:"uri"`
}

// ACPPromptResult is session/prompt's answer.
type ACPPromptResult struct {
	StopReason string    `json:"stopReason"`
	Usage      *ACPUsage `json:"usage"`
}

// ACPUsage is a prompt answer's token usage (camelCase as in the schema;
// snake_case as the usage RFD first wrote it).
type ACPUsage struct {
	InputTokens       int64 `json:"inputTokens"`
	OutputTokens      int64 `json:"outputTokens"`
	TotalTokens       int64 `json:"totalTokens"`
	ThoughtTokens     int64 `json:"thoughtTokens"`
	CachedReadTokens  int64 `json:"cachedReadTokens"`
	CachedWriteTokens int64 `json:"cachedWriteTokens"`

	InputTokensSnake       int64 `json:"input_tokens"`
	OutputTokensSnake      int64 `json:"output_tokens"`
	TotalTokensSnake       int64 `json:"total_tokens"`
	CachedReadTokensSnake  int64 `json:"cached_read_tokens"`
	CachedWriteTokensSnake int64 `json:"cached_write_tokens"`
}

// Input is the input tokens, the cached ones included (as the OpenTelemetry
// conventions count them). The schema leaves open whether inputTokens
// counts the cached tokens; an agent whose totalTokens covers input, output
// and the cache figures apart gives fresh input, and the cached tokens
// are added. Otherwise inputTokens is taken as the whole input (totalTokens
// = input + output, as the schema's own examples have it).
func (u ACPUsage) Input() int64 {
	in, cached := max(u.InputTokens, u.InputTokensSnake), u.CacheRead()+u.CacheWrite()
	if total := max(u.TotalTokens, u.TotalTokensSnake); cached > 0 && total >= in+u.Output()+u.ThoughtTokens+cached {
		return in + cached
	}
	return in
}

// Output, CacheRead and CacheWrite read either spelling.
func (u ACPUsage) Output() int64     { return max(u.OutputTokens, u.OutputTokensSnake) }
func (u ACPUsage) CacheRead() int64  { return max(u.CachedReadTokens, u.CachedReadTokensSnake) }
func (u ACPUsage) CacheWrite() int64 { return max(u.CachedWriteTokens, u.CachedWriteTokensSnake) }

// Usage is the usage as every source counts it: fresh input apart from
// the cache reads and writes.
func (u ACPUsage) Usage() Usage {
	return Usage{InputTokens: u.Input() - u.CacheRead() - u.CacheWrite(), OutputTokens: u.Output(),
		CacheReadTokens: u.CacheRead(), CacheCreationTokens: u.CacheWrite()}
}

// ACPSessionResult is session/new's or session/load's answer (and
// set_config_option's, which gives configOptions).
type ACPSessionResult struct {
	SessionID     string            `json:"sessionId"`
	Models        *ACPModels        `json:"models"`
	Modes         *ACPModes         `json:"modes"`
	ConfigOptions []ACPConfigOption `json:"configOptions"`
}

// ACPModes is a session's mode state (ask, agent, plan…).
type ACPModes struct {
	CurrentModeID string `json:"currentModeId"`
}

// ModeOf is the current mode a session's answer or update names: its
// configOptions entry of category mode, or its modes' currentModeId.
func ModeOf(modes *ACPModes, opts []ACPConfigOption) string {
	for _, o := range opts {
		if o.Category == "mode" {
			var s string
			if json.Unmarshal(o.CurrentValue, &s) == nil && s != "" {
				return s
			}
		}
	}
	if modes != nil {
		return modes.CurrentModeID
	}
	return ""
}

// ACPModels is a session's model state.
type ACPModels struct {
	CurrentModelID string `json:"currentModelId"`
}

// ACPConfigOption is one of a session's configuration options.
type ACPConfigOption struct {
	ID           string          `json:"id"`
	Category     string          `json:"category"`
	CurrentValue json.RawMessage `json:"currentValue"`
}

// ModelOf is the current model a session's answer or update names: its
// models' currentModelId, or its configOptions entry of category model.
func ModelOf(models *ACPModels, opts []ACPConfigOption) string {
	for _, o := range opts {
		if o.Category == "model" {
			var s string
			if json.Unmarshal(o.CurrentValue, &s) == nil && s != "" {
				return s
			}
		}
	}
	if models != nil {
		return models.CurrentModelID
	}
	return ""
}

// ACPSessionRef is any params naming a session (session/load, set_model,
// set_config_option, cancel, and the agent's requests).
type ACPSessionRef struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`     // session/new, load, resume, fork
	ModelID   string `json:"modelId"` // session/set_model
	ModeID    string `json:"modeId"`  // session/set_mode
	// ToolCallID is the tool call a Cursor extension's request belongs to
	// (cursor/ask_question, create_plan, update_todos, task,
	// generate_image: they carry no sessionId).
	ToolCallID string `json:"toolCallId"`
	// cursor/task's subagent, as far as it says.
	SubagentType string `json:"subagentType"`
	Name         string `json:"name"`
	Model        string `json:"model"`
	// cursor/update_todos' list.
	Todos    []ACPTodo       `json:"todos"`
	ConfigID string          `json:"configId"` // session/set_config_option
	Value    json.RawMessage `json:"value"`    // session/set_config_option
	Path     string          `json:"path"`     // fs/*
	Command  string          `json:"command"`  // terminal/create
	ToolCall *ACPToolCall    `json:"toolCall"` // session/request_permission
	Options  []struct {
		OptionID string `json:"optionId"`
		Name     string `json:"name"`
		Kind     string `json:"kind"`
	} `json:"options"` // session/request_permission
}

// ACPTodo is one entry of a todo list (cursor/update_todos).
type ACPTodo struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"`
}

// ACPTaskResult is cursor/task's answer: the subagent that ran.
type ACPTaskResult struct {
	AgentID    string `json:"agentId"`
	DurationMs *int64 `json:"durationMs"`
}

// acpChosen are the option ids a question's answer says the person
// chose, its answers' selectedOptionIds, whether the answers are beside
// the outcome or in it; nil when it names none.
func acpChosen(result json.RawMessage) []string {
	type answers struct {
		Answers []struct {
			Selected []string `json:"selectedOptionIds"`
		} `json:"answers"`
	}
	var r struct {
		answers
		Outcome json.RawMessage `json:"outcome"`
	}
	if json.Unmarshal(result, &r) != nil {
		return nil
	}
	var nested answers
	if len(r.Answers) == 0 && json.Unmarshal(r.Outcome, &nested) == nil {
		r.Answers = nested.Answers
	}
	var ids []string
	for _, a := range r.Answers {
		ids = append(ids, a.Selected...)
	}
	return ids
}

// acpOutcome is what the person answered a wait with, as the answer says
// it: a permission's or question's outcome, an elicitation's action, a
// plan's approval. "" when the answer says none of these.
func acpOutcome(result json.RawMessage) string {
	var r struct {
		Outcome  json.RawMessage `json:"outcome"`
		Action   string          `json:"action"`
		Decision string          `json:"decision"`
		Approved *bool           `json:"approved"`
		Accepted *bool           `json:"accepted"`
	}
	if json.Unmarshal(result, &r) != nil {
		return ""
	}
	var text string
	var nested struct {
		Outcome string `json:"outcome"`
	}
	switch {
	case json.Unmarshal(r.Outcome, &text) == nil && text != "":
		return text
	case json.Unmarshal(r.Outcome, &nested) == nil && nested.Outcome != "":
		return nested.Outcome
	case r.Action != "":
		return r.Action
	case r.Decision != "":
		return r.Decision
	}
	for _, b := range []*bool{r.Approved, r.Accepted} {
		if b != nil {
			if *b {
				return "approved"
			}
			return "rejected"
		}
	}
	return ""
}

// ACPUpdateParams is session/update's params.
type ACPUpdateParams struct {
	SessionID string    `json:"sessionId"`
	Update    ACPUpdate `json:"update"`
}

// ACPUpdate is one session update; SessionUpdate says which.
type ACPUpdate struct {
	SessionUpdate string            `json:"sessionUpdate"`
	Content       json.RawMessage   `json:"content"` // a chunk's ContentBlock, or a tool call's content list
	ACPToolCall                     // tool_call, tool_call_update
	Entries       []ACPPlanEntry    `json:"entries"`       // plan
	ConfigOptions []ACPConfigOption `json:"configOptions"` // config_option_update
	Used          *int64            `json:"used"`          // usage_update
	Size          *int64            `json:"size"`          // usage_update
	CurrentModeID string            `json:"currentModeId"` // current_mode_update
	// State is state_update's state (protocol version 2: a string beside
	// stopReason and usage) or subagent_update's (an object of the same
	// fields): read with StateOf.
	State      json.RawMessage `json:"state"`
	StopReason string          `json:"stopReason"`
	Usage      *ACPUsage       `json:"usage"`
	// Plan is plan_update's plan (its entries when it is of type items).
	Plan *struct {
		Type    string         `json:"type"`
		Entries []ACPPlanEntry `json:"entries"`
	} `json:"plan"`
	// ChildSessionID is the subagent session a subagent_update announces
	// (the update's own sessionId; the params' is the parent's).
	ChildSessionID string `json:"sessionId"`
	Name           string `json:"name"` // subagent_update: the subagent's name
	Cost           *struct {
		Amount   float64 `json:"amount"`
		Currency string  `json:"currency"`
	} `json:"cost"` // usage_update
}

// ACPToolName is the tool name the trace gives an ACP tool call of kind:
// the kind, named as the same tool is in a stream where the two meet
// (execute is shell, fetch is web_fetch), "other" for none.
func ACPToolName(kind string) string {
	switch kind {
	case "":
		return "other"
	case "execute":
		return "shell"
	case "fetch":
		return "web_fetch"
	}
	return kind
}

// ACPToolCall is a tool call's fields, as tool_call, tool_call_update and
// session/request_permission give them.
type ACPToolCall struct {
	ToolCallID string          `json:"toolCallId"`
	Title      string          `json:"title"`
	Kind       string          `json:"kind"`
	Status     string          `json:"status"`
	RawInput   json.RawMessage `json:"rawInput"`
	RawOutput  json.RawMessage `json:"rawOutput"`
	Locations  []ACPLocation   `json:"locations"`
}

// MCP is the MCP tool and its server a tool call's rawInput names
// (Cursor's MCP tools: toolName and providerIdentifier); "" when none.
func (tc ACPToolCall) MCP() (tool, server string) {
	var in struct {
		ToolName           string `json:"toolName"`
		ProviderIdentifier string `json:"providerIdentifier"`
	}
	if len(tc.RawInput) == 0 || json.Unmarshal(tc.RawInput, &in) != nil {
		return "", ""
	}
	return in.ToolName, in.ProviderIdentifier
}

// ACPLocation is a file a tool call works on.
type ACPLocation struct {
	Path string `json:"path"`
	Line *int   `json:"line"`
}

// ACPPlanEntry is one entry of a plan.
type ACPPlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
}

// ACPPermissionResult is session/request_permission's answer.
type ACPPermissionResult struct {
	Outcome struct {
		Outcome  string `json:"outcome"` // selected or cancelled
		OptionID string `json:"optionId"`
	} `json:"outcome"`
}

// StateOf is a state update's state (running, requires_action, idle,
// unknown…), its stopReason and usage, whichever shape carries them.
func (u ACPUpdate) StateOf() (state, stopReason string, usage *ACPUsage) {
	var s string
	if json.Unmarshal(u.State, &s) == nil {
		return s, u.StopReason, u.Usage
	}
	var o struct {
		State      string    `json:"state"`
		StopReason string    `json:"stopReason"`
		Usage      *ACPUsage `json:"usage"`
	}
	if json.Unmarshal(u.State, &o) == nil {
		return o.State, o.StopReason, o.Usage
	}
	return "", "", nil
}

// ChunkText is a chunk's text, when its content is a text block.
func (u ACPUpdate) ChunkText() string {
	var b ACPContentBlock
	if json.Unmarshal(u.Content, &b) == nil {
		return b.Text
	}
	return ""
}

// ACPInitialize is initialize's params (the editor's) or its answer (the
// agent's): who speaks, and the protocol version each side gives (the
// answer's is the one agreed).
type ACPInitialize struct {
	ProtocolVersion json.RawMessage    `json:"protocolVersion"`
	ClientInfo      *ACPImplementation `json:"clientInfo"`
	AgentInfo       *ACPImplementation `json:"agentInfo"`
}

// ACPImplementation names a client or an agent.
type ACPImplementation struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Version string `json:"version"`
}

// Version is the protocol version as text (a number in v1; "" if none).
func (i ACPInitialize) Version() string {
	var n json.Number
	if json.Unmarshal(i.ProtocolVersion, &n) == nil {
		return n.String()
	}
	var s string
	if json.Unmarshal(i.ProtocolVersion, &s) == nil {
		return s
	}
	return ""
}
