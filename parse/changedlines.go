package parse

import (
	"encoding/json"
	"strings"
)

// ChangedLines counts the lines an edit from old to new added and
// removed: the lines of each not matched by an equal line of the other
// (an edit's lines, whatever their order; a moved line counts as none).
func ChangedLines(old, new string) (added, removed int64) {
	left := map[string]int{}
	for _, l := range splitLines(old) {
		left[l]++
	}
	for _, l := range splitLines(new) {
		if left[l] > 0 {
			left[l]--
		} else {
			added++
		}
	}
	for _, n := range left {
		removed += int64(n)
	}
	return added, removed
}

// splitLines is text's lines, none for empty text; a last line without
// its newline is a line.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// ACPDiffLines counts the lines a tool call's content (tool_call,
// tool_call_update) changes in its diff blocks (type diff: oldText,
// none for a new file, and newText); ok is false when it has none.
func ACPDiffLines(content json.RawMessage) (added, removed int64, ok bool) {
	if len(content) == 0 || content[0] != '[' {
		return 0, 0, false
	}
	var blocks []struct {
		Type    string  `json:"type"`
		OldText *string `json:"oldText"`
		NewText string  `json:"newText"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return 0, 0, false
	}
	for _, b := range blocks {
		if b.Type != "diff" {
			continue
		}
		var old string
		if b.OldText != nil {
			old = *b.OldText
		}
		a, r := ChangedLines(old, b.NewText)
		added, removed, ok = added+a, removed+r, true
	}
	return added, removed, ok
}
