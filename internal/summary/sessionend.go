package summary

import (
	"encoding/json"
	"fmt"
	"time"
)

// SessionEnd is what an editor conversation's end (hooks' sessionEnd)
// said when its last turn was already built: it is no turn and has no
// trace, so it is a report line of its own, found by the conversation's
// id (session_id, as in a turn's report).
type SessionEnd struct {
	SessionID  string    `json:"session_id"`
	LastTrace  string    `json:"last_trace_id,omitempty"` // the conversation's last turn
	At         time.Time `json:"at"`
	Reason     string    `json:"reason,omitempty"`
	DurationMs int64     `json:"duration_ms,omitempty"` // what the conversation lasted, as it said
	Turns      int       `json:"turns"`
}

// JSON is the end as one line of JSON: {"session_end": {…}}, a line
// compare tells from a run's report.
func (e SessionEnd) JSON() []byte {
	b, _ := json.Marshal(struct {
		SessionEnd SessionEnd `json:"session_end"`
	}{e})
	return append(b, '\n')
}

// Markdown is the end as one line.
func (e SessionEnd) Markdown() string {
	line := fmt.Sprintf("Conversation %s ended", code(e.SessionID))
	if e.Reason != "" {
		line += " (" + escapeMarkdown(e.Reason) + ")"
	}
	if e.DurationMs > 0 {
		line += " after " + dur(e.DurationMs)
	}
	turns := "turns"
	if e.Turns == 1 {
		turns = "turn"
	}
	return line + fmt.Sprintf(", %d %s.\n\n", e.Turns, turns)
}

// WriteEnd appends a conversation's end to the reports; it is no session
// and counts in no total.
func (f *Files) WriteEnd(e SessionEnd) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, out := range []struct {
		path string
		data []byte
	}{{f.Markdown, []byte(e.Markdown())}, {f.JSON, e.JSON()}} {
		if out.path == "" {
			continue
		}
		if err := appendFile(out.path, out.data); err != nil && f.err == nil {
			f.err = errWrite(err)
		}
	}
}
