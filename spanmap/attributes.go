package spanmap

import (
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// Names from the OpenTelemetry semantic conventions outside GenAI, from
// the Go semconv package.
const (
	ErrorType   = semconv.ErrorTypeKey
	CommandLine = semconv.ProcessCommandLineKey
	ExitCode    = semconv.ProcessExitCodeKey
)

// Names from the OpenTelemetry GenAI semantic conventions (their own
// repository, semantic-conventions-genai; they left the Go semconv
// packages with v1.42.0), declared here, once.
const (
	OperationName     = attribute.Key("gen_ai.operation.name")
	ProviderName      = attribute.Key("gen_ai.provider.name")
	AgentName         = attribute.Key("gen_ai.agent.name")
	ConversationID    = attribute.Key("gen_ai.conversation.id")
	RequestModel      = attribute.Key("gen_ai.request.model")
	InputTokens       = attribute.Key("gen_ai.usage.input_tokens")
	OutputTokens      = attribute.Key("gen_ai.usage.output_tokens")
	CacheReadTokens   = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	CacheCreateTokens = attribute.Key("gen_ai.usage.cache_creation.input_tokens") // the name backends read today
	CacheWriteTokens  = attribute.Key("gen_ai.usage.cache_write.input_tokens")    // the conventions' name now
	ToolName          = attribute.Key("gen_ai.tool.name")
	ToolCallID        = attribute.Key("gen_ai.tool.call.id")
	ToolType          = attribute.Key("gen_ai.tool.type")
	ToolArguments     = attribute.Key("gen_ai.tool.call.arguments")
	ToolResult        = attribute.Key("gen_ai.tool.call.result")
	InputMessages     = attribute.Key("gen_ai.input.messages")
	OutputMessages    = attribute.Key("gen_ai.output.messages")
	FinishReasons     = attribute.Key("gen_ai.response.finish_reasons")
	TimeToFirstChunk  = attribute.Key("gen_ai.response.time_to_first_chunk") // seconds, a double
	MCPMethod         = attribute.Key("mcp.method.name")
)

// A session's own totals, under cursor.usage.*: where its generations
// carry their own gen_ai.usage.* figures (hooks), the session's would
// count them twice in a backend that sums a trace's spans.
const (
	TotalInputTokens      = attribute.Key("cursor.usage.input_tokens")
	TotalOutputTokens     = attribute.Key("cursor.usage.output_tokens")
	TotalCacheReadTokens  = attribute.Key("cursor.usage.cache_read.input_tokens")
	TotalCacheWriteTokens = attribute.Key("cursor.usage.cache_write.input_tokens")
)

var (
	// The cost: cursor.usage.cost in USD (no convention names one yet),
	// gen_ai.usage.cost beside it for the backends that read it (Langfuse,
	// LiteLLM), the table it was priced from ("unpriced" when none knew the
	// model) and the table's name for the model.
	CostUSD   = attribute.Key("cursor.usage.cost")
	GenAICost = attribute.Key("gen_ai.usage.cost")
	// CostCurrency names the currency of the costs beside it: USD for
	// cursor-otel's estimates, an agent's own for what it reports.
	CostCurrency = attribute.Key("cursor.usage.cost_currency")
	CostPricing  = attribute.Key("cursor.cost.pricing")
	CostModel    = attribute.Key("cursor.cost.model")
	CostBudget   = attribute.Key("cursor.cost.budget") // USD, --max-budget-usd
)

// The values of gen_ai.operation.name, one per span kind of the model.
const (
	OpInvokeAgent = "invoke_agent"
	OpChat        = "chat"
	OpExecuteTool = "execute_tool"
)

// OpRequestPermission names the span of a wait on the person for an
// approval, whoever told it (ACP's session/request_permission, the
// stream's interaction_query). A wait is no GenAI operation: it has no
// gen_ai.operation.name.
const OpRequestPermission = "request_permission"

// cursor-agent's own facts, under cursor.*.
const (
	RequestID         = attribute.Key("cursor.request_id")
	Cwd               = attribute.Key("cursor.cwd")
	PermissionMode    = attribute.Key("cursor.permission_mode")
	APIKeySource      = attribute.Key("cursor.api_key_source")
	DurationMs        = attribute.Key("cursor.duration_ms")
	DurationAPIMs     = attribute.Key("cursor.duration_api_ms")
	StderrTail        = attribute.Key("cursor.stderr_tail")
	InvalidLines      = attribute.Key("cursor.stream.invalid_lines")
	UnknownEvents     = attribute.Key("cursor.stream.unknown_events")
	UntracedBytes     = attribute.Key("cursor.stream.untraced_bytes")
	StreamUntraced    = attribute.Key("cursor.stream.untraced") // its completion may be in what was not traced
	SignalName        = attribute.Key("cursor.signal.name")
	ModelCallID       = attribute.Key("cursor.model_call_id")
	ToolCalls         = attribute.Key("cursor.tool_calls")
	FirstTokenMs      = attribute.Key("cursor.time_to_first_token_ms")
	ThinkingMs        = attribute.Key("cursor.thinking.duration_ms")
	ThinkingDeltas    = attribute.Key("cursor.thinking.deltas")
	ThinkingText      = attribute.Key("cursor.thinking.text")
	ToolOutcome       = attribute.Key("cursor.tool.outcome")
	ToolError         = attribute.Key("cursor.tool.error")
	ToolStartMiss     = attribute.Key("cursor.tool.start_missing")
	MCPTool           = attribute.Key("cursor.mcp.tool")
	MCPServer         = attribute.Key("cursor.mcp.server")
	ToolCommand       = attribute.Key("cursor.tool.command")
	ToolWorkingDir    = attribute.Key("cursor.tool.working_directory")
	ToolExitCode      = attribute.Key("cursor.tool.exit_code")
	ToolSignal        = attribute.Key("cursor.tool.signal")
	ToolPath          = attribute.Key("cursor.tool.path")
	ToolPattern       = attribute.Key("cursor.tool.pattern")
	ToolURL           = attribute.Key("cursor.tool.url")
	ToolQuery         = attribute.Key("cursor.tool.query")
	ToolLines         = attribute.Key("cursor.tool.lines")
	ToolLinesAdded    = attribute.Key("cursor.tool.lines_added")
	ToolLinesRemove   = attribute.Key("cursor.tool.lines_removed")
	ToolBytes         = attribute.Key("cursor.tool.bytes")
	ToolOutputBytes   = attribute.Key("cursor.tool.output_bytes")
	ToolFiles         = attribute.Key("cursor.tool.files")
	ToolExecutionMs   = attribute.Key("cursor.tool.execution_ms")
	ToolLocalExecMs   = attribute.Key("cursor.tool.local_execution_ms")
	ToolHardTimeoutMs = attribute.Key("cursor.tool.hard_timeout_ms")

	SubagentID          = attribute.Key("cursor.subagent.id")
	SubagentType        = attribute.Key("cursor.subagent.type")
	SubagentModel       = attribute.Key("cursor.subagent.model")
	SubagentDescription = attribute.Key("cursor.subagent.description")
	SubagentSteps       = attribute.Key("cursor.subagent.steps")
	SubagentStatus      = attribute.Key("cursor.subagent.status") // subagentStop's (hooks)
	SubagentParent      = attribute.Key("cursor.subagent.parent_conversation_id")
	SubagentParallel    = attribute.Key("cursor.subagent.parallel_worker")
	SubagentMessages    = attribute.Key("cursor.subagent.message_count")
	SubagentToolCalls   = attribute.Key("cursor.subagent.tool_call_count")
	SubagentLoops       = attribute.Key("cursor.subagent.loop_count")
	SubagentSessionID   = attribute.Key("cursor.subagent.session_id") // the subagent's own session (ACP's child session)
	// MessageFromSession is the session that sent a message between
	// sessions (ACP's session_message), on its event.
	MessageFromSession = attribute.Key("cursor.message.from_session")

	// A context compaction (preCompact), an event on the session.
	CompactionTrigger   = attribute.Key("cursor.compaction.trigger")
	CompactionMessages  = attribute.Key("cursor.compaction.message_count")
	CompactionCompacted = attribute.Key("cursor.compaction.messages_to_compact")
	CompactionFirst     = attribute.Key("cursor.compaction.first")
	CompactionTokens    = attribute.Key("cursor.compaction.context_tokens")
	CompactionWindow    = attribute.Key("cursor.compaction.context_window_size")
	CompactionPercent   = attribute.Key("cursor.compaction.context_usage_percent")
	CompactionModel     = attribute.Key("cursor.compaction.model") // not the session's model
	TimeUnknown         = attribute.Key("cursor.time_unknown")     // the stream gave this span no time of its own

	InteractionKind    = attribute.Key("cursor.interaction.kind")
	InteractionID      = attribute.Key("cursor.interaction.id")
	InteractionOutcome = attribute.Key("cursor.interaction.outcome")
	// InteractionOptionIDs are the ids of the options the person chose
	// answering a question (never their text, which stays with content
	// capture).
	InteractionOptionIDs = attribute.Key("cursor.interaction.option_ids")
	InteractionWaitMs    = attribute.Key("cursor.interaction.wait_ms")
	Wait                 = attribute.Key("cursor.wait") // true: a span of time the agent waited on the person
	DroppedEvents        = attribute.Key("cursor.dropped_events")
	EventLine            = attribute.Key("cursor.event.line")
	EventType            = attribute.Key("cursor.event.type")
	EventSubtype         = attribute.Key("cursor.event.subtype")
	EventBytes           = attribute.Key("cursor.event.bytes")
	EventError           = attribute.Key("cursor.event.error")
	EventMessage         = attribute.Key("cursor.event.message")
	RetryAttempt         = attribute.Key("cursor.retry.attempt")

	// Where a session's spans came from, and what Cursor said of it.
	Source        = attribute.Key("cursor.source")        // on a turn's root: stream, hooks or acp
	GenerationID  = attribute.Key("cursor.generation_id") // a chat span's generation (hooks)
	CursorVersion = attribute.Key("cursor.version")       // the version of Cursor that ran the hooks
	ComposerMode  = attribute.Key("cursor.composer_mode")

	// A turn's root (hooks), and what sessionEnd says of the conversation.
	TurnNumber       = attribute.Key("cursor.turn.number") // 1 for a conversation's first turn
	TurnEnd          = attribute.Key("cursor.turn.end")
	SessionEndReason = attribute.Key("cursor.session.end_reason")
	SessionDuration  = attribute.Key("cursor.session.duration_ms") // what sessionEnd says the conversation lasted
	SessionTurns     = attribute.Key("cursor.session.turns")       // the turns a conversation had, at its end

	// A stall is a gap without output from the agent longer than
	// Options.StallAfter: a cursor.stall event on the session at the gap's
	// start, saying how long it lasted and what was in flight.
	StallDurationMs = attribute.Key("cursor.stall.duration_ms")
	StallInFlight   = attribute.Key("cursor.stall.in_flight")
	Stalls          = attribute.Key("cursor.stalls")           // on the session: how many
	StallLongestMs  = attribute.Key("cursor.stall.longest_ms") // on the session: the longest
	StallTimeout    = attribute.Key("cursor.stall.timeout_ms") // on the session: the agent was stopped after this long silent
)

// The names of the span events the model records.
const (
	EventThinking    = "cursor.thinking"
	EventConnection  = "cursor.connection"
	EventRetry       = "cursor.retry"
	EventAgentError  = "cursor.error"
	EventUnknown     = "cursor.unknown_event"
	EventInvalidLine = "cursor.invalid_line"
	EventSignal      = "cursor.signal" // a signal passed on to the agent

	EventBackgroundShellTimeout = "cursor.background_shell_timeout"
	EventTaskNotification       = "cursor.task_notification"
	EventSystem                 = "cursor.system"     // another system event
	EventCompaction             = "cursor.compaction" // the context is about to be compacted (hooks)
	EventStall                  = "cursor.stall"
)

// Outcomes of a tool call (cursor.tool.outcome).
const (
	OutcomeSuccess    = "success"
	OutcomeError      = "error"
	OutcomeRejected   = "rejected"
	OutcomeIncomplete = "incomplete"
)

// The values of error.type, each a class a user filters by.
const (
	// A tool call that failed: a class any source can tell, so that one
	// failure reads the same whether a stream, the hooks or ACP told it.
	// The stream's result keys (failure, error, spawnError, aborted, an
	// MCP result's isError) are finer than hooks (a failure, a timeout)
	// and ACP (failed) can say; the exit status is in
	// cursor.tool.exit_code, the message in cursor.tool.error.
	ErrTool    = "error"
	ErrTimeout = "timeout" // it ran out of time
	// ErrIncomplete: a span that ended with its work open (a tool call
	// never completed; a turn that ended without its end: a stream
	// without its result, hooks without the stop, ACP without the
	// prompt's answer).
	ErrIncomplete = "incomplete"
	// ErrBudgetExceeded: a session whose estimated cost is over the
	// budget, or cannot be known.
	ErrBudgetExceeded = "budget_exceeded"
	// ErrStallTimeout: a session cursor-otel stopped because the agent was
	// silent past --stall-timeout.
	ErrStallTimeout = "stall_timeout"
	ErrAgent        = "agent_error" // the agent (or a generation, a subagent) ended in error
	ErrAborted      = "aborted"     // the session was aborted (hooks' sessionEnd)
	ErrExitStatus   = "exit_status" // the agent exited non-zero
	ErrInterrupted  = "interrupted" // the run was sent a signal, and did not end well
)

// ACP attributes (cursor.* where the conventions have none). The JSON-RPC
// ones are given twice: under the names the contract and today's backends
// use (rpc.system, rpc.jsonrpc.*), and under the conventions' current text
// (semconv 1.43: rpc.system.name, rpc.response.status_code, jsonrpc.*).
const (
	RPCSystemName     = semconv.RPCSystemNameKey
	RPCStatusCode     = semconv.RPCResponseStatusCodeKey
	JSONRPCRequestID  = semconv.JSONRPCRequestIDKey
	JSONRPCVersion    = semconv.JSONRPCProtocolVersionKey
	RPCSystem         = attribute.Key("rpc.system")
	RPCMethod         = attribute.Key("rpc.method")
	RPCJSONRPCCode    = attribute.Key("rpc.jsonrpc.error_code")
	RPCJSONRPCMessage = attribute.Key("rpc.jsonrpc.error_message")
	RPCRequestID      = attribute.Key("rpc.jsonrpc.request_id")
	ACPToolKind       = attribute.Key("cursor.tool.kind")
	ACPToolTitle      = attribute.Key("cursor.tool.title")
	ACPToolStatus     = attribute.Key("cursor.tool.status")
	ACPPermOption     = attribute.Key("cursor.permission.option_id")
	ACPPermKind       = attribute.Key("cursor.permission.option_kind")
	ACPPermOutcome    = attribute.Key("cursor.permission.outcome")
	ACPContextUsed    = attribute.Key("cursor.context.used_tokens")
	ACPContextSize    = attribute.Key("cursor.context.size_tokens")
	ACPSessionCost    = attribute.Key("cursor.session.cost") // the session's cumulative cost at the turn's last report, in cursor.usage.cost_currency
	ACPUnanswered     = attribute.Key("cursor.acp.unanswered")
	ACPUntracedBytes  = attribute.Key("cursor.acp.untraced_bytes")
	ACPTurnEnd        = attribute.Key("cursor.acp.turn_end")
	ACPPlanEntries    = attribute.Key("cursor.plan.entries")
	ACPPlanStatuses   = attribute.Key("cursor.plan.statuses")
	ACPMethod         = attribute.Key("cursor.acp.method")
	// The waits on the person and the todo list.
	ACPWait         = attribute.Key("cursor.acp.wait")     // true: the agent waited on the person
	ACPRequestText  = attribute.Key("cursor.acp.request")  // a wait's request, with content capture
	ACPResponseText = attribute.Key("cursor.acp.response") // and the person's answer
	ACPTodoStatuses = attribute.Key("cursor.todos.statuses")
	ACPTodoEntries  = attribute.Key("cursor.todos.entries")
	// The session's life.
	ACPSessionTitle     = attribute.Key("cursor.session.title") // session_info_update's, with content capture
	ACPCompactionStatus = attribute.Key("cursor.compaction.status")
	// Who speaks (initialize).
	AgentVersion       = attribute.Key("gen_ai.agent.version")
	ACPAgentName       = attribute.Key("cursor.acp.agent.name")
	ACPAgentVersion    = attribute.Key("cursor.acp.agent.version")
	ACPClientName      = attribute.Key("cursor.acp.client.name")
	ACPClientVersion   = attribute.Key("cursor.acp.client.version")
	ACPProtocolVersion = attribute.Key("cursor.acp.protocol_version")
)

// Event names of an ACP turn.
const (
	EventACPPlan         = "cursor.plan"
	EventACPTodos        = "cursor.todos"            // cursor/update_todos: the list as it stands
	EventACPNotification = "cursor.acp.notification" // session/cancel, and methods the trace has no span for
)
