package replay

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// An input holds a session when one of its lines is a line of the
// stream (a JSON object with a type); stdin read while looking is given
// back whole.
func TestWithStreams(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		found    bool
	}{
		{"empty", "", false},
		{"blank lines", "\n  \n", false},
		{"Markdown", "# Title\n\nsome text\n", false},
		{"JSON with no type", `{"session_id":"a","wall_s":3}` + "\n", false},
		{"a stream after junk", "junk\n" + `{"type":"system","subtype":"init"}` + "\n", true},
		{"an unknown type", `{"type":"brand_new"}` + "\n", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files, rest, errs := withStreams([]string{"-"}, strings.NewReader(tt.in))
			if got := len(files) == 1; got != tt.found || len(errs) == len(files) {
				t.Errorf("kept %v, errors %v; want a session: %v", files, errs, tt.found)
			}
			if b, _ := io.ReadAll(rest); string(b) != tt.in {
				t.Errorf("stdin given back as %q, want %q", b, tt.in)
			}
			if !tt.found && strings.TrimSpace(tt.in) != "" && !errors.Is(errs[0], errNoStream) {
				t.Errorf("error %v, want errNoStream", errs[0])
			}
		})
	}
}
