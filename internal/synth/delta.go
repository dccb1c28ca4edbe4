package synth

// thinkingDelta is a thinking delta with its keys in the order cursor-agent
// writes them (a map would sort them), so that a benchmark reads the lines
// a user's recordings hold.
type thinkingDelta struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	Text        string `json:"text"`
	SessionID   string `json:"session_id"`
	TimestampMs int64  `json:"timestamp_ms"`
}

func delta(text, session string, t int64) thinkingDelta {
	return thinkingDelta{Type: "thinking", Subtype: "delta", Text: text, SessionID: session, TimestampMs: t}
}
