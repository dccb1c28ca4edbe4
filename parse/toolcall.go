package parse

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// streamToolCall reads a tool_call event of the documented stream-json
// dialect or of the payload-wrapped one. It returns the call and its raw
// result (nil when the event has none).
func streamToolCall(w *wire) (ToolCall, json.RawMessage) {
	outer := decodeObject(w.ToolCall)
	if outer == nil {
		outer = decodeObject(w.PayloadToolCall)
	}
	var call ToolCall
	var result json.RawMessage
	// The tool is the key ending in ToolCall. Beside it the agent puts
	// metadata (toolCallId, startedAtMs, completedAtMs,
	// hookAdditionalContexts, and in the payload dialect id and result), so
	// the first key is not necessarily the tool.
	if key, body := outer.toolKey(); key != "" {
		call.Source, call.Name = key, Canonical(key)
		inner := decodeObject(body)
		if args, ok := inner["args"]; ok {
			call.Args = args
		} else if _, ok := inner["result"]; !ok {
			call.Args = body // the payload dialect puts arguments in the body
		} else {
			call.Args, _ = json.Marshal(inner.without("result"))
		}
		result = inner["result"]
		if key == "mcpToolCall" {
			args := decodeObject(call.Args)
			call.MCPTool = args.str("toolName", "name")
		}
	} else if fn := decodeObject(outer["function"]); fn != nil {
		call.Source = fn.str("name")
		call.Name = call.Source // the function form keeps its own name
		call.Args = unquoteJSON(fn["arguments"])
	}
	if result == nil {
		result = outer["result"]
	}
	if w.CallID != nil {
		call.ID = *w.CallID
	} else {
		call.ID = outer.str("toolCallId", "id")
		if call.ID == "" {
			call.ID = decodeObject(call.Args).str("toolCallId")
		}
	}
	call.StartedAt = outer.num("startedAtMs").millis()
	call.CompletedAt = outer.num("completedAtMs").millis()
	call.Facts = argFacts(decodeObject(call.Args))
	return call, result
}

// hyphenToolCall reads a tool-call-started or tool-call-completed event.
func hyphenToolCall(w *wire) ToolCall {
	call := ToolCall{ID: deref(w.ToolCallID), Source: w.ToolName, Name: Canonical(w.ToolName), Args: w.Parameters}
	if w.ToolCallID == nil && w.CallID != nil {
		call.ID = *w.CallID
	}
	if w.DurationMs.set {
		call.Duration = time.Duration(w.DurationMs.v) * time.Millisecond
	}
	call.Facts = argFacts(decodeObject(call.Args))
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
	"semanticSearchToolCall": "semantic_search", "SemanticSearch": "semantic_search",
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

// argFacts reads what a person looks for from a tool's arguments.
func argFacts(args object) Facts {
	return Facts{
		Command:    args.str("command", "cmd"),
		WorkingDir: args.str("workingDirectory", "working_directory", "cwd"),
		Path:       args.str("path", "filePath", "file_path", "targetFile", "target_file", "targetDirectory", "target_directory"),
		Pattern:    args.str("pattern", "globPattern", "glob_pattern", "regex"),
		URL:        args.str("url"),
		Query:      args.str("query", "searchTerm", "search_term"),
	}
}

// outcomes names the result kinds the agent prints and how each ends a call.
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

// decodeResult reads a tool result in any dialect, adding what it says to
// facts: {"success": {...}} and its siblings (stream-json), {"exitCode",
// "stdout", "stderr"} or {"success": true} (payload dialect), {"success":
// bool, "output", "exit_code"} (hyphenated dialect).
func decodeResult(raw json.RawMessage, facts *Facts) ToolResult {
	res := ToolResult{Outcome: Success, Raw: raw}
	o := decodeObject(raw)
	if o == nil {
		if s := jsonText(raw); s != "" {
			res.Message = s
		}
		return res
	}
	body := o
	for _, key := range o.keys() {
		if outcome, ok := outcomes[key]; ok && isObject(o[key]) {
			res.Kind, res.Outcome, body = key, outcome, decodeObject(o[key])
			break
		}
	}
	if res.Kind == "" {
		// The flat dialects: success is a boolean, error a string.
		if ok, given := o.boolean("success"); given && !ok {
			res.Outcome, res.Kind = Failed, "failure"
		}
		if msg := errorText(o["error"]); msg != "" {
			res.Outcome, res.Kind, res.Message = Failed, "error", msg
		}
	}
	if res.Message == "" {
		res.Message = body.str("error", "errorMessage", "modelVisibleError", "reason", "message")
		if res.Outcome == Success {
			res.Message = "" // a success's message is content, not a reason
		}
	}
	resultFacts(body, facts)
	if facts.ExitCode != nil && *facts.ExitCode != 0 && res.Outcome == Success {
		res.Outcome = Failed
	}
	return res
}

// resultFacts reads what a person looks for from a result body.
func resultFacts(r object, f *Facts) {
	setNum := func(dst **int64, keys ...string) {
		if n := r.num(keys...); n.set {
			*dst = n.ptr()
		}
	}
	setNum(&f.ExitCode, "exitCode", "exit_code")
	setNum(&f.Lines, "totalLines", "linesCreated", "totalMatchedLines", "lines")
	setNum(&f.LinesAdded, "linesAdded")
	setNum(&f.LinesRemoved, "linesRemoved")
	setNum(&f.Bytes, "fileSize", "totalChars", "size")
	setNum(&f.Files, "totalFiles")
	setNum(&f.ExecutionMs, "executionTime")
	if s := r.str("signal"); s != "" {
		f.Signal = s
	}
	if f.Command == "" {
		f.Command = r.str("command")
	}
	if f.Path == "" {
		f.Path = r.str("path")
	}
	_, hasOut := r["stdout"]
	_, hasErr := r["stderr"]
	if hasOut || hasErr {
		n := int64(len(r.str("stdout")) + len(r.str("stderr")))
		f.OutputBytes = &n
	} else if out, ok := r["output"]; ok {
		n := int64(len(jsonText(out)))
		f.OutputBytes = &n
	}
}

// object is a decoded JSON object whose values stay raw.
type object map[string]json.RawMessage

func decodeObject(raw json.RawMessage) object {
	if !isObject(raw) {
		return nil
	}
	var o object
	if json.Unmarshal(raw, &o) != nil {
		return nil
	}
	return o
}

// keys returns the object's keys in a stable order.
func (o object) keys() []string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// toolKey finds the key naming the tool: the one ending in ToolCall whose
// value is an object.
func (o object) toolKey() (string, json.RawMessage) {
	for _, k := range o.keys() {
		if strings.HasSuffix(k, "ToolCall") && len(k) > len("ToolCall") && isObject(o[k]) {
			return k, o[k]
		}
	}
	return "", nil
}

// str returns the first of keys whose value is a non-empty string.
func (o object) str(keys ...string) string {
	for _, k := range keys {
		if s := jsonText(o[k]); s != "" {
			return s
		}
	}
	return ""
}

// num returns the first of keys whose value is a number.
func (o object) num(keys ...string) number {
	for _, k := range keys {
		var n number
		if raw, ok := o[k]; ok && n.UnmarshalJSON(raw) == nil && n.set {
			return n
		}
	}
	return number{}
}

func (o object) boolean(key string) (value, given bool) {
	var b bool
	if raw, ok := o[key]; ok && json.Unmarshal(raw, &b) == nil {
		return b, true
	}
	return false, false
}

func (o object) without(keys ...string) object {
	if o == nil {
		return nil
	}
	out := make(object, len(o))
	for k, v := range o {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

// unquoteJSON turns a function call's arguments, a JSON document inside a
// JSON string, into the document; anything else is kept as it is.
func unquoteJSON(raw json.RawMessage) json.RawMessage {
	if s := jsonText(raw); s != "" && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return raw
}
