package hook

import (
	"errors"
	"strings"
	"testing"
)

// The hook answers neutrally whatever the payload: behind a byte-order
// mark, with blanks, unreadable, empty.
func TestAnswer(t *testing.T) {
	for _, tt := range []struct{ payload, want string }{
		{`{"hook_event_name":"beforeSubmitPrompt","prompt":"hi"}`, "{\"continue\":true}\n"},
		{"\ufeff" + `{"hook_event_name":"beforeSubmitPrompt","prompt":"hi"}`, "{\"continue\":true}\n"},
		{"\ufeff  " + `{"hook_event_name":"beforeSubmitPrompt"}` + "\r\n", "{\"continue\":true}\n"},
		{"\ufeff" + `{"hook_event_name":"preToolUse","tool_name":"Shell"}`, "{}\n"},
		{`{"hook_event_name":"stop","status":"completed"}`, "{}\n"},
		{"\ufeff", "{}\n"},
		{"not json", "{}\n"},
		{"", "{}\n"},
	} {
		var out strings.Builder
		// Wrong settings: the hook answers and records nothing.
		status := Run(Config{Problems: errors.New("a wrong setting"), Stdin: strings.NewReader(tt.payload), Stdout: &out})
		if status != 0 || out.String() != tt.want {
			t.Errorf("payload %q: status %d, answer %q; want 0, %q", tt.payload, status, out.String(), tt.want)
		}
	}
}
