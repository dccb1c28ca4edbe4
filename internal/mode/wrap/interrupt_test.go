package wrap

import (
	"testing"

	"github.com/cursor-otel/cursor-otel/spanmap"
)

// A run the person interrupted is a cancelled turn: Ctrl-C passed on to
// the agent, or the agent's exit status 130; other signals and statuses
// are not.
func TestUserInterrupted(t *testing.T) {
	for _, tt := range []struct {
		name    string
		signals []string
		code    int
		want    bool
	}{
		{"Ctrl-C passed on", []string{"SIGINT"}, 1, true},
		{"exit status 130", nil, 130, true},
		{"SIGTERM", []string{"SIGTERM"}, 143, false},
		{"a failure", nil, 1, false},
		{"a success", nil, 0, false},
		{"SIGHUP then SIGINT", []string{"SIGHUP", "SIGINT"}, 129, true},
	} {
		var sigs []spanmap.Signal
		for _, s := range tt.signals {
			sigs = append(sigs, spanmap.Signal{Name: s})
		}
		if got := userInterrupted(sigs, tt.code); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
