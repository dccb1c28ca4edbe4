package spanmap

// The values of error.type for a tool call that failed: a class any
// source can tell, so that one failure reads the same whether a stream,
// the hooks or ACP told it. The conventions ask for a low-cardinality
// class; the stream's result keys (failure, error, spawnError, aborted,
// an MCP result's isError) are finer than hooks (a failure, a timeout)
// and ACP (failed) can say, and the command's exit status is in
// cursor.tool.exit_code, its message in cursor.tool.error.
const (
	ErrTool    = "error"   // the call failed
	ErrTimeout = "timeout" // it ran out of time
)

// toolErrorType is error.type for a stream's failed tool call whose
// result was of the kind given.
func toolErrorType(kind string) string {
	if kind == "timeout" {
		return ErrTimeout
	}
	return ErrTool
}
