package main

import (
	"reflect"
	"slices"
	"testing"

	"github.com/alecthomas/kong"
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
// the hook command, with no flag set.
func TestHookAloneParsesAsKong(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want bool
	}{
		{"cursor-otel", []string{"hook"}, true},
		{"cursor-otel", []string{"hook", "--quiet"}, false},
		{"cursor-otel", []string{"--quiet", "hook"}, false},
		{"cursor-agent", []string{"hook"}, false},
		{"cursor-otel", []string{"hooks"}, false},
	} {
		if got := hookAlone(tt.name, tt.args); got != tt.want {
			t.Errorf("%s %q: without kong %v, want %v", tt.name, tt.args, got, tt.want)
		}
	}
	var c cli
	parser, err := kong.New(&c, kong.Name("cursor-otel"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := parser.Parse([]string{"hook"})
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Command() != "hook" || !reflect.DeepEqual(c.Flags, cli{}.Flags) {
		t.Errorf("kong parses hook as %q with flags %+v", ctx.Command(), c.Flags)
	}
}
