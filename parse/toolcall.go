package parse

import (
	"bytes"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/valyala/fastjson"
)

// streamToolCall reads a tool_call event of the documented stream-json
// dialect or of the payload-wrapped one. It returns the call and its raw
// result (nil when the event has none).
func streamToolCall(w *wire) (ToolCall, *fastjson.Value) {
	outer := object(w.toolCall)
	if outer == nil {
		outer = object(w.payloadToolCall)
	}
	call, result := toolCallIn(w, outer)
	if w.callID != nil {
		call.ID = str(w.callID)
	}
	return call, result
}

// toolCallIn reads the object that holds a tool call: {"fooToolCall":
// {"args", "result"}} or {"function": {...}}, with the metadata agents put
// beside it. A subagent's steps hold tool calls the same way.
func toolCallIn(w *wire, outer *fastjson.Object) (ToolCall, *fastjson.Value) {
	var call ToolCall
	var body, fn, result, args, metaID *fastjson.Value
	// The tool is the key ending in ToolCall. Beside it the agent puts
	// metadata (toolCallId, startedAtMs, completedAtMs,
	// hookAdditionalContexts, and in the payload dialect id and result), so
	// the first key is not necessarily the tool.
	if outer != nil {
		outer.Visit(func(k []byte, v *fastjson.Value) {
			switch key := string(k); {
			case call.Source == "" && len(key) > len("ToolCall") && strings.HasSuffix(key, "ToolCall") && object(v) != nil:
				call.Source = text(k)
				call.Name, body = Canonical(call.Source), v
			case key == "function":
				fn = v
			case key == "toolCallId" || key == "id":
				metaID = v
			case key == "startedAtMs":
				call.StartedAt = millis(v)
			case key == "completedAtMs":
				call.CompletedAt = millis(v)
			case key == "result":
				result = v
			}
		})
	}
	switch {
	case body != nil:
		args = body.Get("args")
		if r := body.Get("result"); r != nil {
			result = r
		}
		if args == nil {
			args = body // the payload dialect puts the arguments in the body
		}
		call.Args = w.raw(args)
		switch call.Name {
		case "mcp":
			call.MCPTool = first(str(args.Get("toolName")), str(args.Get("name")))
			call.MCPServer = first(str(args.Get("providerIdentifier")), str(args.Get("serverName")), str(args.Get("server")))
		case "task":
			call.Subagent = subagentArgs(w, args)
		}
	case object(fn) != nil:
		call.Source = str(fn.Get("name"))
		call.Name = call.Source // the function form keeps its own name
		args = fn.Get("arguments")
		call.Args = w.raw(args)
		if isString(args) {
			// A JSON document inside a JSON string.
			text := str(args)
			if inner, err := fastjson.Parse(text); err == nil {
				args, call.Args = inner, text
			}
		}
	}
	if metaID != nil {
		call.ID = str(metaID)
	} else {
		call.ID = str(args.Get("toolCallId"))
	}
	call.Facts = argFacts(args)
	return call, result
}

// subagentArgs reads what a task tool call says of the agent it runs. Its
// type comes as a string or as a one-key object ({"explore": {}}).
func subagentArgs(w *wire, args *fastjson.Value) *Subagent {
	if object(args) == nil {
		return &Subagent{}
	}
	sub := &Subagent{
		ID:          first(str(args.Get("agentId")), str(args.Get("agent_id"))),
		Model:       str(args.Get("model")),
		Description: str(args.Get("description")),
	}
	switch t := args.Get("subagentType"); {
	case isString(t):
		sub.Type = str(t)
	case object(t) != nil:
		object(t).Visit(func(k []byte, _ *fastjson.Value) {
			if sub.Type == "" {
				sub.Type = text(k)
			}
		})
	}
	if !w.noContent {
		sub.Prompt = str(args.Get("prompt"))
	}
	return sub
}

// hyphenToolCall reads a tool-call-started or tool-call-completed event.
func hyphenToolCall(w *wire) ToolCall {
	call := ToolCall{Source: w.toolName, Name: Canonical(w.toolName), Args: w.raw(w.parameters)}
	if w.toolCallID != nil {
		call.ID = str(w.toolCallID)
	} else {
		call.ID = str(w.callID)
	}
	if ms, ok := integer(w.durationMs); ok {
		call.Duration = time.Duration(ms) * time.Millisecond
	}
	call.Facts = argFacts(w.parameters)
	return call
}

// canonical maps the names every dialect gives the built-in tools to one.
var canonical = map[string]string{
	"shellToolCall": "shell", "Shell": "shell",
	"readToolCall": "read", "Read": "read",
	"writeToolCall": "write", "writeFileToolCall": "write", "Write": "write",
	"editToolCall": "edit", "strReplaceToolCall": "edit", "applyPatchToolCall": "edit",
	"StrReplace": "edit", "Edit": "edit", "ApplyPatch": "edit",
	"deleteToolCall": "delete", "Delete": "delete",
	"lsToolCall": "ls", "LS": "ls",
	"grepToolCall": "grep", "Grep": "grep",
	"globToolCall": "glob", "Glob": "glob",
	"todoToolCall": "todo", "updateTodosToolCall": "todo", "TodoWrite": "todo",
	"mcpToolCall":      "mcp",
	"webFetchToolCall": "web_fetch", "WebFetch": "web_fetch",
	"webSearchToolCall": "web_search", "WebSearch": "web_search",
	"semSearchToolCall": "semantic_search", "semanticSearchToolCall": "semantic_search", "SemanticSearch": "semantic_search",
	"taskToolCall": "task", "Task": "task",
	"listMcpResourcesToolCall": "list_mcp_resources",
	"askQuestionToolCall":      "ask_question",
}

// Canonical is the tool name the trace uses for a name as a dialect gives
// it: the built-in tools by the contract's table, any other fooBarToolCall
// (or FooBar) as foo_bar.
func Canonical(source string) string {
	if name, ok := canonical[source]; ok {
		return name
	}
	return snake(strings.TrimSuffix(source, "ToolCall"))
}

// snake turns camelCase and PascalCase into snake_case, keeping acronyms
// together (HTTPRequest → http_request).
func snake(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 4)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUpper(c) {
			prevLower := i > 0 && (isLower(s[i-1]) || isDigit(s[i-1]))
			acronymEnd := i > 0 && isUpper(s[i-1]) && i+1 < len(s) && isLower(s[i+1])
			if prevLower || acronymEnd {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// argFacts reads what a person looks for from a tool's arguments; where
// several keys could say a thing, the first in the object wins.
func argFacts(args *fastjson.Value) Facts {
	var f Facts
	obj := object(args)
	if obj == nil {
		return f
	}
	obj.Visit(func(k []byte, v *fastjson.Value) {
		var dst *string
		switch string(k) {
		case "command", "cmd":
			dst = &f.Command
		case "workingDirectory", "working_directory", "cwd":
			dst = &f.WorkingDir
		case "path", "filePath", "file_path", "targetFile", "target_file", "targetDirectory", "target_directory":
			dst = &f.Path
		case "pattern", "globPattern", "glob_pattern", "regex":
			dst = &f.Pattern
		case "hardTimeout", "hard_timeout":
			if f.HardTimeout == nil {
				f.HardTimeout = integerPtr(v)
			}
		case "url":
			dst = &f.URL
		case "query", "searchTerm", "search_term":
			dst = &f.Query
		}
		if dst != nil && *dst == "" {
			*dst = str(v)
		}
	})
	return f
}

// outcomes names the result kinds the agent prints and how each ends a call;
// a denial of any permission (readPermissionDenied, writePermissionDenied,
// …) is a rejection too (outcomeOf).
var outcomes = map[string]Outcome{
	"success":          Success,
	"failure":          Failed,
	"error":            Failed,
	"spawnError":       Failed,
	"timeout":          Failed,
	"aborted":          Failed,
	"rejected":         Rejected,
	"permissionDenied": Rejected,
}

// outcomeOf is how a result of the kind ends a call; false for a key that
// is not a result kind.
func outcomeOf(kind string) (Outcome, bool) {
	if o, ok := outcomes[kind]; ok {
		return o, true
	}
	if strings.HasSuffix(kind, "PermissionDenied") {
		return Rejected, true
	}
	return "", false
}

// decodeResult reads a tool result in any dialect, adding what it says to
// facts: {"success": {...}} and its siblings (stream-json), {"exitCode",
// "stdout", "stderr"} or {"success": true} (payload dialect), {"success":
// bool, "output", "exit_code"} (hyphenated dialect).
func decodeResult(w *wire, result *fastjson.Value, call *ToolCall) ToolResult {
	facts := &call.Facts
	res := ToolResult{Outcome: Success, Raw: w.raw(result)}
	if isString(result) {
		res.Message = str(result)
		return res
	}
	obj := object(result)
	if obj == nil {
		return res
	}
	body := result
	obj.Visit(func(k []byte, v *fastjson.Value) {
		if res.Kind != "" {
			return
		}
		outcome, ok := outcomeOf(string(k))
		switch {
		case !ok:
		case object(v) != nil:
			res.Kind, res.Outcome, body = string(k), outcome, v
		case outcome == Rejected && isString(v):
			// A refusal that is its reason alone: {"permissionDenied": "…"}.
			res.Kind, res.Outcome, res.Message = string(k), outcome, str(v)
		}
	})
	if res.Kind == "" {
		// The flat dialects: success is a boolean, error a string.
		if ok := result.Get("success"); ok != nil && ok.Type() == fastjson.TypeFalse {
			res.Outcome, res.Kind = Failed, "failure"
		}
		if msg := errorText(result.Get("error")); msg != "" {
			res.Outcome, res.Kind, res.Message = Failed, "error", msg
		}
	}
	message, isError := resultFacts(object(body), facts, w.scratch)
	if res.Message == "" && res.Outcome != Success {
		res.Message = message // a success's message is content, not a reason
	}
	if res.Outcome == Failed && refusedByHook(res.Message) {
		// A hook's refusal comes as an error for some tools (read, glob,
		// edit) and as a rejection for others (shell): a refusal either way.
		res.Outcome = Rejected
	}
	if res.Outcome == Rejected {
		res.Message = denialReason(res.Message)
	}
	if isError && res.Outcome == Success {
		// An MCP tool's own failure comes inside a success: {"success":
		// {"content": [...], "isError": true}}.
		res.Outcome, res.Kind, res.Message = Failed, "tool_error", first(message, mcpErrorText(object(body)))
	}
	if call.Name == "task" {
		if call.Subagent == nil {
			call.Subagent = &Subagent{}
		}
		if id := str(body.Get("agentId")); id != "" && call.Subagent.ID == "" {
			call.Subagent.ID = id
		}
		call.Subagent.Steps = steps(w, body.Get("conversationSteps"))
	}
	if facts.ExitCode != nil && *facts.ExitCode != 0 && res.Outcome == Success {
		res.Outcome = Failed
	}
	return res
}

// What cursor-agent says of a call a hook refused: the reason, then a
// note to the model (and, for a before-hook, where hooks are set).
var (
	hookRefusals = []string{"Hook blocked with message:", "was blocked by a hook", "blocked by preToolUse hook", agentDenialNote}
	denialTails  = []string{"\n\n" + agentDenialNote, "\n\nTo view or modify configured hooks"}
)

const agentDenialNote = "Agent note: Do not suggest workarounds to the blocked tool."

// refusedByHook says an error's message is a hook's refusal.
func refusedByHook(msg string) bool {
	for _, s := range hookRefusals {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// denialReason is a refusal's reason without the notes cursor-agent adds
// for the model.
func denialReason(msg string) string {
	for _, tail := range denialTails {
		if i := strings.Index(msg, tail); i >= 0 {
			msg = msg[:i]
		}
	}
	return strings.TrimSpace(msg)
}

// resultFacts reads what a person looks for from a result body, in one
// pass, and returns the body's error or reason text, and whether the body
// says it is an error (isError, as MCP results do). scratch, when not nil,
// is where output is copied to have its length counted (see stringLen).
func resultFacts(body *fastjson.Object, f *Facts, scratch *[]byte) (message string, isError bool) {
	if body == nil {
		return "", false
	}
	var outBytes int64
	var hasOut bool
	set := func(dst **int64, v *fastjson.Value) {
		if *dst == nil {
			*dst = integerPtr(v)
		}
	}
	body.Visit(func(k []byte, v *fastjson.Value) {
		switch string(k) {
		case "exitCode", "exit_code":
			set(&f.ExitCode, v)
		case "totalLines", "linesCreated", "totalMatchedLines", "lines":
			set(&f.Lines, v)
		case "linesAdded":
			set(&f.LinesAdded, v)
		case "linesRemoved":
			set(&f.LinesRemoved, v)
		case "fileSize", "totalChars", "size":
			set(&f.Bytes, v)
		case "totalFiles":
			set(&f.Files, v)
		case "executionTime":
			set(&f.ExecutionMs, v)
		case "localExecutionTimeMs":
			set(&f.LocalExecMs, v)
		case "signal":
			f.Signal = first(f.Signal, str(v))
		case "command":
			f.Command = first(f.Command, str(v))
		case "path":
			f.Path = first(f.Path, str(v))
		case "stdout", "stderr":
			outBytes += stringLen(v, scratch)
			hasOut = true
		case "output":
			if !hasOut {
				outBytes, hasOut = stringLen(v, scratch), true
			}
		case "error", "errorMessage", "modelVisibleError", "reason", "message":
			message = first(message, errorText(v))
		case "isError", "is_error":
			isError = v.Type() == fastjson.TypeTrue
		}
	})
	if hasOut {
		f.OutputBytes = &outBytes
	}
	return message, isError
}

// mcpErrorText is the text of an MCP result's content parts: what the
// server said went wrong.
func mcpErrorText(body *fastjson.Object) string {
	if body == nil {
		return ""
	}
	return contentText(body.Get("content"))
}

// maxSteps bounds the subagent steps kept of one task: a subagent's whole
// conversation is in its result.
const maxSteps = 256

// steps reads a subagent's conversation steps: each an object with one
// key saying what it is (assistantMessage, thinkingMessage, toolCall, …).
func steps(w *wire, v *fastjson.Value) []Step {
	if v == nil || v.Type() != fastjson.TypeArray {
		return nil
	}
	items, _ := v.Array()
	var out []Step
	for _, item := range items[:min(len(items), maxSteps)] {
		obj := object(item)
		if obj == nil {
			continue
		}
		obj.Visit(func(k []byte, v *fastjson.Value) {
			st := Step{Kind: text(k)}
			switch st.Kind {
			case "toolCall":
				call, result := toolCallIn(w, object(v))
				r := decodeResult(w, result, &call)
				st.Tool, st.Result = &call, &r
			case "thinkingMessage", "thinking":
				st.Think = true
				if !w.noContent {
					st.Text = first(str(v.Get("text")), str(v))
				}
			default:
				if !w.noContent {
					st.Text = first(str(v.Get("text")), contentText(v.Get("content")), str(v))
				}
			}
			out = append(out, st)
		})
	}
	return out
}

// stringLen is the length of a string value once unescaped, 0 for a value
// of another type. v must not have been read yet: fastjson keeps a string
// as the line has it, escapes and all, until it is read, and MarshalTo
// then copies it out as it is. With scratch to copy it to, the escapes
// are counted there, which is several times faster than unescaping
// (in place in the parser's copy of the line, which is what it costs
// without scratch).
func stringLen(v *fastjson.Value, scratch *[]byte) int64 {
	if v == nil {
		return 0
	}
	if scratch == nil {
		if !isString(v) {
			return 0
		}
		b, _ := v.StringBytes()
		return int64(len(b))
	}
	*scratch = v.MarshalTo((*scratch)[:0])
	b := *scratch
	if len(b) < 2 || b[0] != '"' {
		return 0 // not a string
	}
	return unescapedLen(b[1 : len(b)-1])
}

// unescapedLen is len(s) once unescaped as fastjson unescapes it, best
// effort: an escape it does not know, or a \u without four hex digits, is
// kept as written, a lone surrogate is kept as its escape, and a \u code
// point becomes its UTF-8 bytes (a surrogate pair one 4-byte rune).
func unescapedLen(s []byte) int64 {
	n := int64(len(s))
	for {
		i := bytes.IndexByte(s, '\\')
		if i < 0 {
			return n
		}
		if i+1 >= len(s) {
			// A backslash that ends the string is dropped, as fastjson
			// does (its raw strings never end in an odd one).
			return n - 1
		}
		s = s[i+1:]
		switch s[0] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			n-- // two bytes become one
			s = s[1:]
		case 'u':
			x, ok := hex4(s[1:])
			if !ok {
				s = s[1:] // "\\u" kept as it is
				break
			}
			if !utf16.IsSurrogate(rune(x)) {
				n -= 6 - int64(utf8.RuneLen(rune(x)))
				s = s[5:]
				break
			}
			if len(s) < 11 || s[5] != '\\' || s[6] != 'u' {
				s = s[5:] // a lone surrogate, kept as its escape
				break
			}
			y, ok := hex4(s[7:])
			if !ok {
				s = s[5:]
				break
			}
			// A pair, or a surrogate and what follows as U+FFFD: four
			// bytes or three, from twelve.
			n -= 12 - int64(utf8.RuneLen(utf16.DecodeRune(rune(x), rune(y))))
			s = s[11:]
		default:
			s = s[1:] // an escape fastjson does not know, kept
		}
	}
}

// hex4 reads four hex digits, as strconv.ParseUint(s[:4], 16, 16) does.
func hex4(s []byte) (uint16, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var x uint16
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		x = x<<4 | uint16(c)
	}
	return x, true
}
