// Package parse turns cursor-agent's stream-json output, in every dialect the
// agent has printed, into typed events. It knows nothing of OpenTelemetry.
package parse

import "time"

// Event is one line of the stream, decoded. The concrete types are the
// pointer types below; Head gives the fields every event has.
type Event interface {
	Head() *Header
}

// Header is what every event carries, whatever its type.
type Header struct {
	Line        int       // 1-based line number in the stream
	Type        string    // "type" as written
	Subtype     string    // "subtype" as written
	SessionID   string    // session_id; empty when the line has none
	ModelCallID string    // model_call_id; empty when the line has none
	Time        time.Time // timestamp_ms; zero when the line has none
}

// Head returns the header; it makes every event type an Event.
func (h *Header) Head() *Header { return h }

// OwnTime is the time the stream itself gives an event: a tool call's own
// start and end, else the line's timestamp; zero when it gives none.
func OwnTime(ev Event) time.Time {
	switch e := ev.(type) {
	case *ToolStarted:
		if !e.Call.StartedAt.IsZero() {
			return e.Call.StartedAt
		}
	case *ToolCompleted:
		if !e.Call.CompletedAt.IsZero() {
			return e.Call.CompletedAt
		}
	}
	return ev.Head().Time
}

// Init is system/init: the start of a session.
type Init struct {
	Header
	Model          string
	Cwd            string
	PermissionMode string
	APIKeySource   string
	RequestID      string
}

// Prompt is the user event: the prompt the agent was given.
type Prompt struct {
	Header
	Text string
}

// Thinking is one thinking delta, or with Done the end of a thinking phase.
type Thinking struct {
	Header
	Text string
	Done bool
}

// Assistant is assistant text. Delta marks a partial-output chunk
// (--stream-partial-output); without it the event is a consolidated message
// that repeats what the deltas said.
type Assistant struct {
	Header
	Text  string
	Delta bool
}

// ToolStarted is a tool call starting.
type ToolStarted struct {
	Header
	Call ToolCall
}

// ToolCompleted is a tool call ending, with its result.
type ToolCompleted struct {
	Header
	Call   ToolCall
	Result ToolResult
}

// Result is the terminal event of a session.
type Result struct {
	Header
	IsError       bool
	Text          string // "result": the final answer, or the error text
	Error         string // "error", when given apart from the result
	DurationMs    int64
	DurationAPIMs int64
	RequestID     string
	Usage         *Usage // nil when the stream reports none
}

// Usage is the token usage a result reports, as it reports it.
type Usage struct {
	InputTokens         int64 `json:"InputTokens"` // fresh input: Cursor's inputTokens count neither cache reads nor writes
	OutputTokens        int64 `json:"OutputTokens"`
	CacheReadTokens     int64 `json:"CacheReadTokens"`
	CacheCreationTokens int64 `json:"CacheCreationTokens"`
}

// Interaction is the agent asking its client for something (approval of a
// shell command, a web search, an answer) or the answer coming back:
// interaction_query request and response. A wait for a person shows here.
type Interaction struct {
	Header
	Kind     string // the query's own name: shellRequestQuery, webSearchRequestQuery, …
	ID       string // pairs a request with its response
	Response bool   // a response (else a request)
	Outcome  string // of a response: approved, rejected, … as the stream says
	// Path and Command: the file or the command a request asks about
	// (an edit's, a shell call's), so that the wait can be placed under
	// the tool call it holds up: the query names no call id.
	Path, Command string
}

// Notice is a system event other than init: background_shell_timeout,
// task_notification, … (the subtype says which).
type Notice struct {
	Header
	Message string // what it says, when it says something in words
	CallID  string // the tool call it is about, if any
}

// Connection is a connection event (reconnecting, reconnected, …); the
// subtype says which.
type Connection struct {
	Header
}

// Retry is a retry event; the subtype says which.
type Retry struct {
	Header
	Attempt int64 // 0 when not given
}

// Error is an error event the agent (or a client wrapping it) printed.
type Error struct {
	Header
	Message string
}

// Unknown is a JSON object of a type this package does not know. It is kept
// so that nothing the agent said is lost.
type Unknown struct {
	Header
	Size int // bytes in the line
}

// Deltas is thinking deltas that followed a *Thinking delta of the same
// session and model call, folded into one event by DecodeAhead (see
// WithFoldedDeltas): its header is the last delta's.
type Deltas struct {
	Header
	Count  int       // the deltas folded, at least one
	First  time.Time // the first one's time
	Before time.Time // the time of the delta before the last
}

// Blank is a line with nothing on it (see WithBlankLines).
type Blank struct {
	Header
}

// Invalid is a line that is not a JSON object, or too long to decode.
type Invalid struct {
	Header
	Size int   // bytes in the line, without its line ending
	Err  error // why it could not be decoded
}

// ToolCall is what the stream says about one tool call.
type ToolCall struct {
	ID        string    `json:"ID"`        // call_id exactly as given, newlines included
	Name      string    `json:"Name"`      // canonical name: shell, read, write, edit, … (see Canonical)
	Source    string    `json:"Source"`    // the name as the stream gives it: shellToolCall, Shell, a function's name
	MCPTool   string    `json:"MCPTool"`   // for mcp: the MCP tool's own name
	MCPServer string    `json:"MCPServer"` // for mcp: the server it belongs to (providerIdentifier)
	Args      string    `json:"Args"`      // the arguments as JSON, as the stream gave them
	Facts     Facts     `json:"Facts"`
	Subagent  *Subagent `json:"Subagent"` // for task: the agent it ran

	StartedAt   time.Time     `json:"StartedAt"`   // startedAtMs; zero when absent
	CompletedAt time.Time     `json:"CompletedAt"` // completedAtMs; zero when absent
	Duration    time.Duration `json:"Duration"`    // duration_ms (hyphenated dialect); zero when absent
}

// Facts are the parts of a tool call a person looks for. Empty strings and
// nil pointers mean the stream did not say.
type Facts struct {
	Command      string `json:"Command"`
	WorkingDir   string `json:"WorkingDir"`
	Path         string `json:"Path"`
	Pattern      string `json:"Pattern"`
	URL          string `json:"URL"`
	Query        string `json:"Query"`
	ExitCode     *int64 `json:"ExitCode"`
	Signal       string `json:"Signal"`
	Lines        *int64 `json:"Lines"` // lines read, written, listed or matched
	LinesAdded   *int64 `json:"LinesAdded"`
	LinesRemoved *int64 `json:"LinesRemoved"`
	Bytes        *int64 `json:"Bytes"`       // file size or characters
	OutputBytes  *int64 `json:"OutputBytes"` // a command's stdout and stderr
	Files        *int64 `json:"Files"`       // files found
	ExecutionMs  *int64 `json:"ExecutionMs"` // the tool's own measure of its run time
	LocalExecMs  *int64 `json:"LocalExecMs"` // localExecutionTimeMs: the time it ran on this machine
	HardTimeout  *int64 `json:"HardTimeout"` // hardTimeout: the most it may run, in milliseconds
}

// Subagent is what a task tool call says of the agent it ran.
type Subagent struct {
	ID          string `json:"ID"`   // agentId
	Type        string `json:"Type"` // subagentType (its name when given as {"explore": {}})
	Model       string `json:"Model"`
	Description string `json:"Description"`
	Prompt      string `json:"Prompt"` // content: only with content
	Steps       []Step `json:"Steps"`  // the subagent's own steps, when its result carries them
}

// Step is one step of a subagent's conversation (a task's result).
type Step struct {
	Text   string      `json:"Text"`   // assistant text, or thinking (content only)
	Think  bool        `json:"Think"`  // a thinking step
	Tool   *ToolCall   `json:"Tool"`   // a tool call, with its result
	Result *ToolResult `json:"Result"` // the tool call's result
	Kind   string      `json:"Kind"`   // the step's own name: assistantMessage, thinkingMessage, toolCall, …
}

// Outcome is how a tool call ended.
type Outcome string

// The outcomes a completed tool call can have. A call with no completion is
// "incomplete", which only the span mapping can know.
const (
	Success  Outcome = "success"
	Failed   Outcome = "error"
	Rejected Outcome = "rejected"
)

// ToolResult is how a tool call ended.
type ToolResult struct {
	Outcome Outcome `json:"Outcome"`
	Kind    string  `json:"Kind"`    // the result's own name: success, failure, rejected, permissionDenied, …
	Message string  `json:"Message"` // the error or the reason for a rejection
	Raw     string  `json:"Raw"`     // the result as JSON, as the stream gave it
}
