package parse

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// What a hook event says beyond its own fields, as Cursor means it.

// NamesSessionModel says the event's model is the session's: a
// compaction's and a subagent's events name their own.
func (e HookEvent) NamesSessionModel() bool {
	return e.Name != HookPreCompact && e.Name != HookSubagentStart && e.Name != HookSubagentStop
}

// BetterModel is the model to name: Cursor says "default" for whatever
// its picker chose until an event names the model that ran.
func BetterModel(known string, said ...string) string {
	for _, m := range said {
		if m != "" && m != "default" && (known == "" || known == "default") {
			return m
		}
	}
	if known == "" {
		for _, m := range said {
			if m != "" {
				return m
			}
		}
	}
	return known
}

// ShellKey names a shell call as both its end events tell it: the
// command and the duration, which they give alike; "" for anything else.
func (e HookEvent) ShellKey() string {
	if !e.EndsTool() || e.Tool == nil || e.Tool.Name != "shell" || e.Tool.Facts.Command == "" {
		return ""
	}
	return e.Tool.Facts.Command + "\x00" + strconv.FormatInt(e.Duration.Microseconds(), 10)
}

// digestMark starts a text a journal kept as its digest alone (content
// not captured): it tells a thought's second copy, and is never shown.
const digestMark = "\x00digest:"

// TextDigest is text as a journal keeps it without content capture: a
// digest that tells it from another text without keeping it. A digest's
// digest is itself.
func TextDigest(text string) string {
	if IsTextDigest(text) {
		return text
	}
	sum := sha256.Sum256([]byte(text))
	return digestMark + hex.EncodeToString(sum[:8])
}

// IsTextDigest says text is a digest a journal kept in its place.
func IsTextDigest(text string) bool { return strings.HasPrefix(text, digestMark) }
