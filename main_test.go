package main

import (
	"reflect"
	"slices"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/cursor-otel/cursor-otel/internal/mode/hook"
)

// A command line run without kong is one kong would have routed to
// cursor-agent with the same arguments; the common ones are.
func TestAgentsAloneRoutesAsKong(t *testing.T) {
	parser, err := kong.New(&cli{}, kong.Name("cursor-otel"))
	if err != nil {
		t.Fatal(err)
	}
	own := ownFlags(parser)
	tests := []struct {
		name string
		args []string
		fast bool // run without kong
	}{
		{"cursor-otel", nil, true},
		{"cursor-otel", []string{"-p", "--output-format", "stream-json", "fix it"}, true},
		{"cursor-otel", []string{"--", "--capture-content", "-p"}, true},
		{"cursor-otel", []string{"fix", "--quiet"}, true},
		{"cursor-otel", []string{"-", "x"}, true},
		{"cursor-otel", []string{"status"}, true},
		{"cursor-otel", []string{"acp"}, true},
		{"cursor-otel", []string{"--", "--api-key", "k", "acp"}, true},
		{"cursor-agent", []string{"--api-key", "k", "-e", "https://x", "acp"}, true},
		{"cursor-otel", []string{"--quiet", "--", "-e", "https://x", "acp"}, false},
		{"cursor-agent", []string{"replay", "--quiet"}, true},
		{"agent", []string{"--help"}, true},
		{"cursor-agent", []string{"--", "x"}, true}, // the agent's own --
		{"cursor-otel", []string{"--", "--", "x"}, true},
		{"cursor-otel", []string{"--quiet", "-p", "hi"}, false},
		{"cursor-otel", []string{"--capture-content=true", "-p"}, false},
		{"cursor-otel", []string{"--model", "gpt-5"}, false}, // cursor-agent's, but a long flag first: kong decides
		{"cursor-otel", []string{"replay", "x.ndjson"}, false},
		{"cursor-otel", []string{"version"}, false},
		{"cursor-otel", []string{"hook"}, false},
		{"cursor-otel", []string{"-h"}, false},
		{"cursor-otel", []string{"--help"}, false},
	}
	for _, tt := range tests {
		got, ok := agentsAlone(tt.name, tt.args)
		if ok != tt.fast {
			t.Errorf("%s %q: without kong %v, want %v", tt.name, tt.args, ok, tt.fast)
		}
		if !ok {
			continue
		}
		routed, err := route(tt.name, tt.args, own)
		if err != nil {
			t.Errorf("%s %q: route: %v", tt.name, tt.args, err)
			continue
		}
		if want := append([]string{"run"}, got...); !slices.Equal(routed, want) {
			t.Errorf("%s %q: run with %q without kong, kong routes %q", tt.name, tt.args, got, routed)
		}
	}
}

// A hook event's command line run without kong is the one kong parses as
// the hook command, with the same flags set; any other is left to kong.
func TestHookAloneParsesAsKong(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want bool
	}{
		{"cursor-otel", []string{"hook"}, true},
		{"cursor-otel", []string{"hook", "--capture-content"}, true},
		{"cursor-otel", []string{"hook", "--capture-content=false", "--summary-json=/a b/runs.jsonl", "--summary=/r.md", "--trace-url=http://j/{trace_id}"}, true},
		{"cursor-otel", []string{"hook", "--summary="}, true},
		{"cursor-otel", []string{"hook", "--summary", "/r.md"}, false}, // kong's form, not install's
		{"cursor-otel", []string{"hook", "--quiet"}, false},
		{"cursor-otel", []string{"--quiet", "hook"}, false},
		{"cursor-agent", []string{"hook"}, false},
		{"cursor-otel", []string{"hooks"}, false},
	} {
		h, ok := hookAlone(tt.name, tt.args)
		if ok != tt.want {
			t.Errorf("%s %q: without kong %v, want %v", tt.name, tt.args, ok, tt.want)
		}
		if !ok {
			continue
		}
		var c cli
		parser, err := kong.New(&c, kong.Name("cursor-otel"))
		if err != nil {
			t.Fatal(err)
		}
		ctx, err := parser.Parse(tt.args)
		if err != nil {
			t.Fatal(err)
		}
		if ctx.Command() != "hook" || !reflect.DeepEqual(*h, c.Hook) {
			t.Errorf("%q: kong parses %q with %+v, without kong %+v", tt.args, ctx.Command(), c.Hook, *h)
		}
	}
	// The flags install writes are the ones the hook reads without kong.
	for _, flag := range hook.CommandFlags {
		if _, ok := hookAlone("cursor-otel", []string{"hook", flag + "=x"}); !ok {
			t.Errorf("hook %s=x goes to kong", flag)
		}
	}
}

// Wrap mode's flags before a command of cursor-otel's go after it, for
// the command to take or refuse; before anything else, they are wrap
// mode's.
func TestRouteMovesFlagsToTheirCommand(t *testing.T) {
	parser, err := kong.New(&cli{}, kong.Name("cursor-otel"))
	if err != nil {
		t.Fatal(err)
	}
	own := ownFlags(parser)
	for _, tt := range []struct{ args, want []string }{
		{[]string{"--summary", "x", "--", "-p", "hi"}, []string{"run", "--summary", "x", "--", "-p", "hi"}},
		{[]string{"--summary", "x", "-p", "hi"}, []string{"run", "--summary", "x", "--", "-p", "hi"}},
		{[]string{"--quiet", "replay", "f"}, []string{"replay", "--quiet", "f"}},
		{[]string{"--quiet", "--help"}, []string{"--help"}},
		{[]string{"version", "--quiet"}, []string{"version", "--quiet"}},
		{[]string{"--capture-content", "hooks", "install", "--project"}, []string{"hooks", "install", "--capture-content", "--project"}},
		{[]string{"--capture-content", "hooks"}, []string{"hooks", "--capture-content"}},
	} {
		got, err := route("cursor-otel", tt.args, own)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("route(%q) = %q, %v; want %q", tt.args, got, err, tt.want)
		}
	}
}

// A word is offered the command it is a slip of, and only then.
func TestClosestCommand(t *testing.T) {
	for word, want := range map[string]string{
		"repaly": "replay", "replya": "replay", "rplay": "replay", "verison": "version", "flsuh": "flush", "comapre": "compare",
		"hoks": "hooks", "hlep": "help", "Replay": "", "replay": "", "ls": "", "st": "", "status": "", "login": "", "fix": "",
		"-p": "", "update": "", "models": "", "resume": "",
	} {
		if got := closestCommand(word); got != want {
			t.Errorf("closestCommand(%q) = %q, want %q", word, got, want)
		}
	}
	if d := editDistance("ab", "ba"); d != 1 {
		t.Errorf("a swap is %d edits, want 1", d)
	}
}
