package spanmap

// toolErrorType is error.type for a stream's failed tool call whose
// result was of the kind given.
func toolErrorType(kind string) string {
	if kind == "timeout" {
		return ErrTimeout
	}
	return ErrTool
}
