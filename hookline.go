package main

import (
	"strings"

	"github.com/cursor-otel/cursor-otel/internal/settings"
)

// hookAlone reads a command line that is a hook event's, as hooks.json
// entries write it (hooks install): cursor-otel hook, then the flags of
// hook.CommandFlags in their --NAME=VALUE form. Cursor runs a hook for
// every step of a session and waits for it, so these are read without
// kong (TestHookAloneParsesAsKong keeps the two in step); ok is false for
// anything else, which kong then parses.
func hookAlone(name string, args []string) (h *hookCmd, ok bool) {
	if name == "cursor-agent" || name == "agent" || len(args) == 0 || args[0] != "hook" {
		return nil, false
	}
	h = &hookCmd{}
	for _, a := range args[1:] {
		flag, value, joined := strings.Cut(a, "=")
		switch {
		case flag == "--capture-content":
			h.CaptureContent = settings.Switch{Text: "true", Set: true}
			if joined {
				h.CaptureContent.Text = value
			}
		case !joined:
			return nil, false
		case flag == "--summary":
			h.Summary = value
		case flag == "--summary-json":
			h.SummaryJSON = value
		case flag == "--trace-url":
			h.TraceURL = value
		default:
			return nil, false
		}
	}
	return h, true
}
